// `blis plan`: the cheapest fleet meeting the SLOs, searched over GPUs, TP, copies and
// prefill/decode splits (docs/plan.md). A thin layer over src/plan.

import { Command, InvalidArgumentError } from "commander";
import { runFlags } from "../config/runFlags.js";
import { defaultJobs } from "../experiment/jobs.js";
import type { CliIo } from "./io.js";
import { optionFor, runInputFrom } from "./runCommand.js";
import { planCli } from "./planRun.js";
import { parsePositiveSeconds } from "./sweepCommand.js";

/** Run flags the plan sets itself (per candidate or per evaluation) or that have no meaning for it. */
export const PLAN_OWN_KEYS: ReadonlySet<string> = new Set([
  "hardware",
  "tp",
  "numInstances",
  "rate",
  "seed",
  "concurrency",
  "thinkTimeMs",
  "maxNumSeqs",
  "maxNumBatchedTokens",
  "maxNumRunningReqs",
  "maxNumScheduledTokens",
  "prefillInstances",
  "decodeInstances",
  "prefillDecodeInstances",
  "encodeInstances",
  "pdDecider",
  "prefillTp",
  "decodeTp",
  "prefillHardware",
  "decodeHardware",
  "sloTtft",
  "sloItl",
  "sloE2e",
  "resultsPath",
  "report",
  "reportInterval",
  "detectors",
  "saturationReport",
  "saturationFinalWindow",
  "modelAutoscalerIntervalUs",
]);
export const PLAN_RUN_FLAGS = runFlags().filter((f) => !PLAN_OWN_KEYS.has(f.key));

const positive =
  (flag: string, integer = false) =>
  (text: string): number => {
    const n = Number(text);
    if (text.trim() === "" || !Number.isFinite(n) || n <= 0 || (integer && !Number.isSafeInteger(n)))
      throw new InvalidArgumentError(
        `${flag} must be a ${integer ? "positive integer" : "finite number > 0"}, got "${text}"`,
      );
    return n;
  };

export function registerPlanCommand(program: Command, io: CliIo): void {
  const cmd = program
    .command("plan")
    .description(
      "find the cheapest deployment (GPU, TP, replicas, prefill/decode split) that meets latency SLOs at a load",
    )
    .option("--rate <req/s>", "offered arrival rate", positive("--rate"))
    .option(
      "--slo <targets>",
      "targets, e.g. ttft_p99_ms=300,itl_p99_ms=40 (ttft|itl|e2e _ mean|p90|p95|p99 _ms; goodput=FRACTION)",
    )
    .option("--gpus <list>", "candidate GPUs (default: every GPU of the hardware list and the price table)")
    .option(
      "--tp <list>",
      "candidate tensor-parallel degrees (default 1,2,4,8; those the model does not fit are skipped)",
    )
    .option("--pd <list>", 'co-located ("none") and PREFILL:DECODE splits, e.g. none,1:3,2:2 (default none)')
    .option("--max-num-seqs <list>", "candidate engine batch limits (default 256)")
    .option("--max-num-batched-tokens <list>", "candidate token budgets per step (default 2048)")
    .option("--seeds <n>", "seeds per point (default 3)", positive("--seeds", true))
    .option("--seed-quantile <q>", 'an SLO holds "all" = in every seed (default), or at this quantile over seeds')
    .option("--gpu-prices <file>", "price table YAML (default: the bundled example list prices)")
    .option("--max-replicas <n>", "most copies of a shape tried (default 64)", positive("--max-replicas", true))
    .option(
      "--shapes-per-step <n>",
      "shapes searched side by side (default 4; does not change the answer)",
      positive("--shapes-per-step", true),
    )
    .option("--timeout-s <s>", "wall-clock limit per simulation (default 600)", positive("--timeout-s"))
    .option(
      "--jobs <n>",
      `simulations at a time (default: number of CPUs, ${defaultJobs()} here)`,
      positive("--jobs", true),
    )
    .option(
      "--queue <url>",
      "run the simulations on the workers of a Redis work queue (redis://HOST:PORT[/DB]; see blis worker)",
    )
    .option(
      "--wait-timeout <s>",
      "with --queue: fail (exit 1) when no worker has been connected to the queue for this many seconds (default: wait)",
      parsePositiveSeconds,
    )
    .option("--out <dir>", "write plan.json, evaluations.jsonl (reused on a rerun), deploy/ and report.html here")
    .option(
      "--fleet <shape>",
      "inverse question: the highest rate this fleet sustains, e.g. H100:tp2:8 or H100:tp1:4:1:3 (GPU:tpN:COPIES[:P:D])",
    )
    .option(
      "--rate-schedule <file>",
      "rates over a day (CSV lines HH:MM,RATE): replicas per interval for the best shape at the peak",
    )
    .option("--progress", "progress on stderr even when it is not a terminal")
    .option("--no-progress", "no progress on stderr")
    .addHelpText(
      "after",
      "\nEvery run flag below sets what all candidates share (model, workload, routing, ...); --num-requests\n" +
        "defaults to a minute of arrivals (500 to 6000), not to the run default.\n" +
        "Exit status: 0 a plan was found; 1 bad input, or nothing in the candidate space meets the SLOs.\n" +
        "Example: blis plan --model meta-llama/llama-3.1-8b-instruct --rate 50 --slo ttft_p99_ms=300,itl_p99_ms=40 --gpus H100,A100-80 --tp 1,2 --out out/plan",
    );
  for (const f of PLAN_RUN_FLAGS) cmd.addOption(optionFor(f));
  cmd.action(async (opts: Record<string, unknown>) => {
    await planCli(opts, runInputFrom(opts, PLAN_RUN_FLAGS), io);
  });
}
