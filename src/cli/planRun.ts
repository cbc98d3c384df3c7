// Runs `blis plan` from parsed options and writes its outputs.

import fs from "node:fs";
import path from "node:path";
import type { RunInput } from "../config/runOptions.js";
import { defaultJobs } from "../experiment/jobs.js";
import type { RunExecutor } from "../experiment/pool.js";
import { writeFileAtomic } from "../util/atomicWrite.js";
import { UserError } from "../util/errors.js";
import type { PlanRuntime } from "../plan/question.js";
import type { CliIo } from "./io.js";
import { checkRunInputs } from "./inputPaths.js";
import { checkOutputDir, writeOutput } from "./outputPaths.js";
import { buildQuestion } from "./planQuestion.js";

/** The work queue of --queue (bounded by --wait-timeout), or undefined for local processes. */
async function queueExecutor(opts: Record<string, unknown>, io: CliIo): Promise<RunExecutor | undefined> {
  const { parseQueueUrl } = await import("../queue/url.js");
  const queueUrl = opts["queue"] !== undefined ? parseQueueUrl(String(opts["queue"])) : null;
  const waitTimeout = opts["waitTimeout"] as number | undefined;
  if (waitTimeout !== undefined && queueUrl === null)
    throw new UserError("--wait-timeout needs --queue (it bounds the wait for queue workers)");
  if (queueUrl === null) return undefined;
  return (await import("../queue/coordinator.js")).QueueExecutor.open(queueUrl, io.stderrLine, waitTimeout);
}

export async function planCli(opts: Record<string, unknown>, base: RunInput, io: CliIo): Promise<void> {
  const t0 = performance.now();
  if (opts["rateSchedule"] !== undefined && opts["rate"] !== undefined)
    throw new UserError("--rate and --rate-schedule are exclusive");
  if (opts["fleet"] !== undefined && opts["rateSchedule"] !== undefined)
    throw new UserError("--fleet and --rate-schedule are exclusive");
  const q = buildQuestion(opts, base, opts["fleet"] === undefined && opts["rateSchedule"] === undefined);
  checkRunInputs(base);
  const outDir = opts["out"] !== undefined ? String(opts["out"]) : null;
  if (outDir !== null) checkOutputDir("--out", outDir);
  const executor = await queueExecutor(opts, io);
  const progress = opts["progress"] === true || (opts["progress"] !== false && io.stderrStream?.isTTY === true);
  const rt: PlanRuntime = {
    jobs: (opts["jobs"] as number | undefined) ?? defaultJobs(),
    ...(executor !== undefined ? { pool: executor } : {}),
    outDir,
    progress,
    say: io.stderrLine,
  };
  const put = (name: string, data: string): void => {
    if (outDir === null) return;
    fs.mkdirSync(path.dirname(path.join(outDir, name)), { recursive: true });
    writeOutput("--out", path.join(outDir, name), data, writeFileAtomic);
  };
  let failure: string | null = null;
  try {
    if (opts["fleet"] !== undefined)
      failure = await (await import("./planFleet.js")).fleetCli(String(opts["fleet"]), q, rt, io, put);
    else
      failure = await (
        await import("./planBest.js")
      ).bestCli(q, rt, io, put, opts["rateSchedule"] as string | undefined);
  } finally {
    await executor?.close();
  }
  io.stderrLine(
    `plan: wall time ${((performance.now() - t0) / 1000).toFixed(1)} s${outDir !== null ? `; results in ${outDir}` : ""}`,
  );
  if (failure !== null) throw new UserError(failure);
}
