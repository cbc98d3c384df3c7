// The `blis fit` action (docs/calibration.md "Fit"): loaded on demand.

import fs from "node:fs";
import { createHash } from "node:crypto";
import type { RunInput } from "../config/runOptions.js";
import { UserError } from "../util/errors.js";
import { writeFileAtomic } from "../util/atomicWrite.js";
import type { ExperimentEval } from "../calibration/fit/evaluate.js";
import { objective } from "../calibration/fit/fit.js";
import { loadInputs } from "../calibration/fit/inputs.js";
import { beta, PARAM_NAMES } from "../calibration/fit/params.js";
import {
  blackboxFileText,
  blackboxFlags,
  coefficientFileText,
  coefficientFlags,
  errorTable,
} from "../calibration/fit/report.js";
import {
  BLACKBOX_LAYOUT,
  KERNELS_LAYOUT,
  TRAINED_PHYSICS_LAYOUT,
  checkBlackboxInputs,
  freeParams,
  type ParamLayout,
} from "../calibration/fit/layout.js";
import { degeneracies, standardErrors } from "../calibration/fit/diagnostics.js";
import { kernelFileText, kernelFlags, kernelStart, parameterTable } from "../calibration/fit/kernelsReport.js";
import { blackboxStart } from "../calibration/fit/blackboxStart.js";
import { fit, startCoefficients, type FitOutcome } from "../calibration/fit/run.js";
import type { FitExperiment } from "../calibration/experiments.js";
import type { CliIo } from "./io.js";
import { checkOutputPath, writeOutput } from "./outputPaths.js";
import { checkRunInputs } from "./inputPaths.js";
import { DATA_FILE_LIMIT, readInputFile } from "../util/inputFile.js";

const LAYOUTS: Record<string, ParamLayout> = {
  "trained-physics": TRAINED_PHYSICS_LAYOUT,
  blackbox: BLACKBOX_LAYOUT,
  kernels: KERNELS_LAYOUT,
};

export async function runFitCli(opts: Record<string, unknown>, run: RunInput, io: CliIo): Promise<void> {
  const model = String(opts["latencyModel"] ?? "trained-physics");
  const layout = LAYOUTS[model]!;
  const blackbox = layout === BLACKBOX_LAYOUT;
  if (blackbox && opts["start"] !== undefined) {
    throw new UserError(
      "--start reads trained-physics files; a blackbox fit starts from --alpha-coeffs and --beta-coeffs",
    );
  }
  // Trace and CSV inputs run the model being fitted (the default model of a run may be another).
  const runIn: RunInput = { ...run, latencyModel: model };
  const out = String(opts["out"]);
  checkOutputPath("--out", out);
  checkRunInputs(run);
  const seed = opts["seed"] as number;
  const skipped: string[] = [];
  const load = (flag: string, specs: unknown): FitExperiment[] =>
    loadInputs((specs as string[] | undefined) ?? [], { run: runIn, seed, flag, skipped });
  const data = load("--data", opts["data"]);
  const holdout = load("--holdout", opts["holdout"]);
  for (const s of skipped) io.stderrLine(`skipped ${s}`);
  if (data.length === 0) throw new UserError("--data: no experiment to fit");
  if (blackbox) {
    checkBlackboxInputs(data, "--data");
    checkBlackboxInputs(holdout, "--holdout");
  }
  const bb = blackbox ? await blackboxStart(run) : null;
  const startFile = opts["start"] as string | undefined;
  const start = bb?.coefficients ?? (layout === KERNELS_LAYOUT ? kernelStart(startFile) : startCoefficients(startFile));
  const free = freeParams(layout, opts["params"] as string | undefined, opts["terms"] as string | undefined);
  const names = layout === TRAINED_PHYSICS_LAYOUT ? PARAM_NAMES : layout.names;
  const progress = (line: string): void => io.stderrLine(line);

  // Resume: evaluations of an interrupted fit with the same inputs are kept beside the output.
  const statePath = `${out}.state.json`;
  const fingerprint = fitFingerprint(opts, runIn, seed, start, free);
  const memo =
    opts["fresh"] === true ? new Map<string, ExperimentEval[]>() : readState(statePath, fingerprint, progress);
  const save = (): void =>
    writeFileAtomic(
      statePath,
      JSON.stringify({ fingerprint, evaluations: [...memo].map(([k, evs]) => [k, evs.map(serialize)]) }),
    );

  progress(`fitting ${free.map((j) => names[j]).join(", ")} on ${data.length} experiment(s)`);
  const res = await fit({
    data,
    holdout,
    jobs: opts["jobs"] as number,
    start,
    free,
    whenUsed: whenUsedParams(opts, layout),
    iterations: opts["iterations"] as number,
    budget: opts["budget"] as number,
    lambda: opts["lambda"] as number,
    memo,
    onEvaluated: save,
    progress,
  });
  const scored = res.after.reduce((s, e) => s + e.errors.scored, 0);
  if (scored === 0) {
    fs.rmSync(statePath, { force: true });
    throw new UserError("--data: no simulated request matched a measured one: nothing to fit (no file written)");
  }
  const stderr = standardErrors(res.after, res.free, res.objectiveAfter);
  const iterations = opts["iterations"] as number;
  const input = { names, free: res.free, theta: res.theta, stderr, iterations, scoredRequests: scored };
  for (const why of degeneracies({
    ...input,
    objectiveBefore: res.objectiveBefore,
    objectiveAfter: res.objectiveAfter,
  })) {
    io.stderrLine(`warning: degenerate fit: ${why}`);
  }
  const summary = fitSummary(data, holdout, res, names);
  const file = fileText(layout, res, summary, bb?.kvBlocks ?? null);
  writeOutput("--out", out, file.text, writeFileAtomic);
  io.stdout(fitTables(layout, res, names, stderr, holdout.length > 0));
  io.stdout(`\nCoefficients written to ${out}\nAs flags: ${file.flags}\n`);
  fs.rmSync(statePath, { force: true });
}

/** Identifies the inputs of a fit: saved evaluations are reused only by a fit with the same fingerprint. */
function fitFingerprint(
  opts: Record<string, unknown>,
  runIn: RunInput,
  seed: number,
  start: unknown,
  free: number[],
): string {
  return createHash("sha256")
    .update(
      JSON.stringify({
        data: opts["data"],
        run: runIn,
        seed,
        start,
        free,
        lambda: opts["lambda"],
        terms: opts["terms"] ?? "",
      }),
    )
    .digest("hex")
    .slice(0, 16);
}

/** The default trained-physics fit (no --params) frees some parameters only when the data exercises them. */
function whenUsedParams(opts: Record<string, unknown>, layout: ParamLayout): number[] {
  return opts["params"] === undefined && layout === TRAINED_PHYSICS_LAYOUT ? WHEN_USED : [];
}

/** The printed result: fitted parameters with standard errors, then the error tables before and after. */
function fitTables(
  layout: ParamLayout,
  res: FitOutcome,
  names: readonly string[],
  stderr: number[],
  hasHoldout: boolean,
): string {
  let text = parameterTable(
    layout,
    res.free.map((j, a) => ({ name: names[j]!, value: res.theta[j]!, stderr: stderr[a]! })),
  );
  text += "\n" + errorTable("## Fitted experiments (mean APE)", res.before, res.after);
  if (hasHoldout) text += "\n" + errorTable("## Held-out experiments (mean APE)", res.holdoutBefore, res.holdoutAfter);
  return text;
}

/** The written file and the run flags that use the fitted coefficients. */
function fileText(layout: ParamLayout, res: FitOutcome, summary: Record<string, unknown>, kvBlocks: number | null) {
  if (layout === BLACKBOX_LAYOUT) {
    const flags = blackboxFlags(res.coefficients, kvBlocks);
    return { flags, text: blackboxFileText(res.coefficients, summary, flags) };
  }
  if (layout === KERNELS_LAYOUT)
    return { flags: kernelFlags(res.coefficients), text: kernelFileText(res.coefficients, summary) };
  return { flags: coefficientFlags(res.coefficients), text: coefficientFileText(res.coefficients, summary) };
}

/** The header comment of the coefficient file: what was fitted, and the objective before/after. */
function fitSummary(
  data: readonly FitExperiment[],
  holdout: readonly FitExperiment[],
  res: FitOutcome,
  names: readonly string[],
): Record<string, unknown> {
  const summary: Record<string, unknown> = {
    data: data.map((x) => x.id),
    free: res.free.map((j) => names[j]),
    objective_before: Number(res.objectiveBefore.toFixed(6)),
    objective_after: Number(res.objectiveAfter.toFixed(6)),
  };
  if (holdout.length > 0) {
    summary["holdout"] = holdout.map((x) => x.id);
    summary["holdout_objective_before"] = Number(objective(res.holdoutBefore).toFixed(6));
    summary["holdout_objective_after"] = Number(objective(res.holdoutAfter).toFixed(6));
  }
  return summary;
}

/** β8 (interleaved MoE) and β_EP (MoE with dp > 1) are fitted only when the data exercises them. */
const WHEN_USED = [beta(7), beta(10)];

type Serialized = Omit<ExperimentEval, "ne"> & { ne: { G: number[]; h: number[] } };

function serialize(e: ExperimentEval): Serialized {
  return { ...e, ne: { G: Array.from(e.ne.G), h: Array.from(e.ne.h) } };
}

function readState(file: string, fingerprint: string, progress: (l: string) => void): Map<string, ExperimentEval[]> {
  const memo = new Map<string, ExperimentEval[]>();
  if (!fs.existsSync(file)) return memo;
  try {
    const s = JSON.parse(readInputFile(file, DATA_FILE_LIMIT)) as {
      fingerprint: string;
      evaluations: [string, Serialized[]][];
    };
    if (s.fingerprint !== fingerprint) {
      progress(`${file} belongs to a fit with other inputs: starting afresh`);
      return memo;
    }
    for (const [k, evs] of s.evaluations)
      memo.set(
        k,
        evs.map((e) => ({ ...e, ne: { G: Float64Array.from(e.ne.G), h: Float64Array.from(e.ne.h) } })),
      );
    progress(`resuming: ${memo.size} saved evaluation(s) from ${file}`);
  } catch {
    progress(`${file} is unreadable: starting afresh`);
  }
  return memo;
}
