// From `blis plan` options to a plan question; every problem is one UserError naming the flag.

import type { RunInput } from "../config/runOptions.js";
import { UserError } from "../util/errors.js";
import { loadPriceTable } from "../plan/prices.js";
import { defaultRequests, PLAN_DEFAULTS, type PlanQuestion } from "../plan/question.js";
import { hardwareGpus, parseIntList, parsePdList } from "../plan/shapes.js";
import { KERNEL_GPUS } from "../latency/kernels/tables.js";
import { parseSeedRule, parseSlos } from "../plan/slo.js";

function list(text: unknown): string[] | null {
  if (text === undefined) return null;
  return String(text)
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
}

/**
 * Default candidate GPUs: those with kernel tables, then the hardware list's others, then GPUs only
 * the price table names; A100-80 is the A100-SXM under its seed-era name and is not searched twice.
 */
function defaultGpus(base: RunInput, priced: string[]): string[] {
  const hw = hardwareGpus(
    base.hardwareConfig !== undefined && base.hardwareConfig !== "" ? base.hardwareConfig : undefined,
  );
  const all = [...new Set([...KERNEL_GPUS, ...hw, ...priced])];
  return all.includes("A100-SXM") ? all.filter((g) => g !== "A100-80") : all;
}

/** The --gpus list, or null when not given (the default candidates apply). */
function givenGpus(opts: Record<string, unknown>): string[] | null {
  const gpuList = list(opts["gpus"]);
  if (gpuList !== null && gpuList.length === 0)
    throw new UserError("--gpus: the candidate space is empty (no GPU listed)");
  if (gpuList !== null && new Set(gpuList).size !== gpuList.length)
    throw new UserError("--gpus: a GPU is listed twice");
  return gpuList;
}

/** The candidate values of each shape axis besides the GPU: given lists, else the defaults (parsed in this order). */
function shapeAxes(
  opts: Record<string, unknown>,
): Pick<PlanQuestion, "tps" | "pds" | "maxNumSeqs" | "maxNumBatchedTokens"> {
  return {
    tps: opts["tp"] !== undefined ? parseIntList("--tp", String(opts["tp"])) : [...PLAN_DEFAULTS.tps],
    pds: opts["pd"] !== undefined ? parsePdList(String(opts["pd"])) : [{ kind: "none" }],
    maxNumSeqs: opts["maxNumSeqs"] !== undefined ? parseIntList("--max-num-seqs", String(opts["maxNumSeqs"])) : [256],
    maxNumBatchedTokens:
      opts["maxNumBatchedTokens"] !== undefined
        ? parseIntList("--max-num-batched-tokens", String(opts["maxNumBatchedTokens"]))
        : [2048],
  };
}

/** How far the search may go: the largest fleet, shapes tried per step, and wall-clock time. */
function searchLimits(opts: Record<string, unknown>): Pick<PlanQuestion, "maxUnits" | "shapesPerStep" | "timeoutS"> {
  return {
    maxUnits: (opts["maxReplicas"] as number | undefined) ?? PLAN_DEFAULTS.maxUnits,
    shapesPerStep: (opts["shapesPerStep"] as number | undefined) ?? PLAN_DEFAULTS.shapesPerStep,
    timeoutS: (opts["timeoutS"] as number | undefined) ?? PLAN_DEFAULTS.timeoutS,
  };
}

/** The question; `rate` may be absent only for --fleet (pass requireRate false). */
export function buildQuestion(opts: Record<string, unknown>, base: RunInput, requireRate = true): PlanQuestion {
  if (base.model === undefined || base.model === "") throw new UserError("--model is required");
  const rate = opts["rate"] as number | undefined;
  if (requireRate && rate === undefined)
    throw new UserError("--rate is required (the offered arrival rate, requests/s)");
  if (opts["slo"] === undefined) throw new UserError("--slo is required (e.g. ttft_p99_ms=300,itl_p99_ms=40)");
  const slos = parseSlos(String(opts["slo"]));
  const prices = loadPriceTable(...(opts["gpuPrices"] !== undefined ? [String(opts["gpuPrices"])] : []));
  const gpuList = givenGpus(opts);
  const seeds = (opts["seeds"] as number | undefined) ?? PLAN_DEFAULTS.seeds.length;
  const r = rate ?? 1;
  return {
    base,
    rate: r,
    requests: base.numRequests ?? defaultRequests(r),
    slos,
    seeds: Array.from({ length: seeds }, (_, i) => i + 1),
    seedRule: parseSeedRule(opts["seedQuantile"] !== undefined ? String(opts["seedQuantile"]) : "all"),
    gpus: gpuList ?? defaultGpus(base, Object.keys(prices.perGpuHour)),
    gpusGiven: gpuList !== null,
    ...shapeAxes(opts),
    prices,
    ...searchLimits(opts),
    minCompletionRatio: PLAN_DEFAULTS.minCompletionRatio,
  };
}
