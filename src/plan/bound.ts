// Physical lower bound on the copies of a shape: the offered prefill and decode work (tokens/s of
// the generated workload) against what one instance could do at best (its step-time model at the
// most favourable batch). Fewer instances than offered/capacity cannot keep up in steady state,
// so the search starts at the bound instead of at 1.

import type { RunInput } from "../config/runOptions.js";
import type { LatencyModel, StepRequestView } from "../latency/model.js";
import { resolveWorkload } from "../sim/resolveWorkload.js";
import { parseRunInput } from "../sim/parseOptions.js";
import { silentLogger } from "../util/log.js";
import type { Shape } from "./shapes.js";

export interface OfferedLoad {
  requests: number;
  /** Arrivals per second over the generated arrivals. */
  rate: number;
  meanInput: number;
  meanOutput: number;
  /** Shortest prompt and output of the generated requests (floors of the latency targets). */
  minInput: number;
  minOutput: number;
  /**
   * Whether prompt work can be bounded: false when prompts may share cached prefixes (a workload
   * spec, or --prefix-tokens), where prefill work depends on cache hits the bound cannot know.
   */
  prefillBounded: boolean;
}

/** Generates the workload of `input` (no simulation) and measures what it offers. */
export function offeredLoad(input: RunInput): OfferedLoad {
  const { o, explicit } = parseRunInput(input, silentLogger);
  const w = resolveWorkload(o, explicit, silentLogger);
  const cap = o.numRequests > 0 ? o.numRequests : 100_000;
  let n = 0;
  let sumIn = 0;
  let sumOut = 0;
  let minIn = Infinity;
  let minOut = Infinity;
  let first = 0;
  let last = 0;
  for (let r = w.source.next(); r !== null && n < cap; r = w.source.next()) {
    if (n === 0) first = r.arrival;
    last = r.arrival;
    sumIn += r.inputLen;
    sumOut += r.outputLen;
    minIn = Math.min(minIn, r.inputLen);
    minOut = Math.min(minOut, r.outputLen);
    n++;
  }
  const span = (last - first) / 1e6;
  const rate = n > 1 && span > 0 ? (n - 1) / span : o.rate;
  const specLike = o.workloadSpec !== "" || o.workloadSpecObject !== undefined || o.workload !== "distribution";
  return {
    requests: n,
    rate,
    meanInput: n > 0 ? sumIn / n : 0,
    meanOutput: n > 0 ? sumOut / n : 0,
    minInput: n > 0 ? minIn : 0,
    minOutput: n > 0 ? minOut : 0,
    prefillBounded: !specLike && o.prefixTokens === 0,
  };
}

function views(count: number, v: StepRequestView): StepRequestView[] {
  return Array.from({ length: count }, () => ({ ...v }));
}

/** Best decode tokens/s of one instance: batches of up to max-num-seqs (and what KV holds) at the shortest context. */
export function decodeCapacity(m: LatencyModel, s: Shape, load: OfferedLoad, kvTokens: number): number {
  const ctx = Math.max(1, Math.round(load.meanInput));
  const out = Math.max(1, Math.round(load.meanOutput));
  const maxBatch = Math.max(1, Math.min(s.maxNumSeqs, Math.floor(kvTokens / ctx)));
  let best = 0;
  for (let b = maxBatch; b >= 1; b = Math.floor(b / 2)) {
    const t = m.stepTime(views(b, { pi: ctx, inputLen: ctx, outputLen: out, numNewTokens: 1 }), b);
    if (t > 0) best = Math.max(best, (b / t) * 1e6);
  }
  return best;
}

/** Best prompt tokens/s of one instance: full steps of max-num-batched-tokens new tokens from fresh prompts. */
export function prefillCapacity(m: LatencyModel, s: Shape, load: OfferedLoad): number {
  const input = Math.max(1, Math.round(load.meanInput));
  const budget = s.maxNumBatchedTokens;
  const batch: StepRequestView[] = [];
  let left = budget;
  while (left > 0 && batch.length < s.maxNumSeqs) {
    const take = Math.min(left, input);
    batch.push({ pi: 0, inputLen: input, outputLen: 1, numNewTokens: take });
    left -= take;
  }
  const t = m.stepTime(batch, batch.length);
  return t > 0 ? ((budget - left) / t) * 1e6 : Infinity;
}

export interface ShapeBound {
  /** Smallest copies of the shape that could keep up (>= 1). */
  units: number;
  /** Which work sets it: prefill, decode or none (1 copy). */
  by: "prefill" | "decode" | "none";
  prefillCapacity: number;
  decodeCapacity: number;
}

/** The lower bound on copies of `s` for `load`. */
export function shapeBound(m: LatencyModel, s: Shape, load: OfferedLoad, kvTokens: number): ShapeBound {
  const dc = decodeCapacity(m, s, load, kvTokens);
  const pc = prefillCapacity(m, s, load);
  const decodeInstances = dc > 0 ? (load.rate * load.meanOutput) / dc : 0;
  const prefillInstances = load.prefillBounded && pc > 0 ? (load.rate * load.meanInput) / pc : 0;
  const perUnitP = s.pd.kind === "none" ? 1 : s.pd.prefill;
  const perUnitD = s.pd.kind === "none" ? 1 : s.pd.decode;
  const needP = Math.ceil(prefillInstances / perUnitP - 1e-9);
  const needD = Math.ceil(decodeInstances / perUnitD - 1e-9);
  const units = Math.max(1, needP, needD);
  const by = units <= 1 ? "none" : needP >= needD ? "prefill" : "decode";
  return { units, by, prefillCapacity: pc, decodeCapacity: dc };
}

/** The least TTFT, ITL and E2E (ms) any request can see on an idle instance of the shape. */
export function latencyFloor(m: LatencyModel, s: Shape, load: OfferedLoad): { ttft: number; itl: number; e2e: number } {
  const input = Math.max(1, load.minInput);
  const chunk = Math.min(input, s.maxNumBatchedTokens);
  const prefill = m.stepTime([{ pi: 0, inputLen: input, outputLen: 1, numNewTokens: chunk }], 1);
  const decode = m.stepTime([{ pi: input, inputLen: input, outputLen: 2, numNewTokens: 1 }], 1);
  const perToken = m.outputTokenProcessingTime();
  const ttft = (m.queueingTime(input) + prefill + perToken) / 1000;
  const itl = (decode + perToken) / 1000;
  return { ttft, itl, e2e: ttft + Math.max(0, load.minOutput - 1) * itl };
}
