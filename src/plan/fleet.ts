// The inverse question (`--fleet GPU:tpN:COPIES[:P:D]`): the highest arrival rate a given fleet
// sustains within the SLOs, by doubling the rate until it fails, then bisecting to a relative
// precision. Latency grows with the rate, so feasibility is monotone in it; the points run are
// checked for that.

import { UserError } from "../util/errors.js";
import { Evaluator } from "./evaluate.js";
import { judge } from "./judge.js";
import { defaultRequests, type PlanQuestion, type PlanRuntime } from "./question.js";
import { shapeId, type PdLayout, type Shape } from "./shapes.js";

export interface FleetSpec {
  shape: Shape;
  copies: number;
}

/** Parses `H100:tp2:8` or `H100:tp1:4:1:3` (4 copies of 1 prefill + 3 decode instances). */
export function parseFleet(text: string, q: PlanQuestion): FleetSpec {
  const m = /^([^:]+):tp(\d+):(\d+)(?::(\d+):(\d+))?$/.exec(text.trim());
  if (m === null) throw new UserError(`--fleet: "${text}" is not GPU:tpN:COPIES[:PREFILL:DECODE] (e.g. H100:tp2:8)`);
  const tp = Number(m[2]);
  const copies = Number(m[3]);
  if (tp < 1 || copies < 1) throw new UserError(`--fleet: TP and copies must be >= 1 in "${text}"`);
  const pd: PdLayout =
    m[4] === undefined ? { kind: "none" } : { kind: "split", prefill: Number(m[4]), decode: Number(m[5]) };
  if (pd.kind === "split" && (pd.prefill < 1 || pd.decode < 1))
    throw new UserError(`--fleet: prefill and decode must be >= 1 in "${text}"`);
  const seqs = q.maxNumSeqs[0]!;
  const mbt = q.maxNumBatchedTokens[0]!;
  return {
    shape: { id: shapeId(m[1]!, tp, pd, seqs, mbt), gpu: m[1]!, tp, pd, maxNumSeqs: seqs, maxNumBatchedTokens: mbt },
    copies,
  };
}

export interface FleetProbe {
  rate: number;
  feasible: boolean;
  reason: string;
}

export interface FleetResult {
  shape: string;
  copies: number;
  /** Highest rate that met the SLOs (null: not even the lowest). */
  sustained: number | null;
  /** Lowest rate that missed them (null: not even the highest tried). */
  failed: number | null;
  /** What failed at `failed`. */
  binding: string;
  probes: FleetProbe[];
  /** A rate that met the SLOs above one that did not. */
  monotonicity_violations: number;
}

const MIN_RATE = 0.125;
const MAX_RATE = 1e5;

/** Doubling from `start`, then bisection until the bracket is within `precision` (relative). */
export async function fleetCapacity(
  q: PlanQuestion,
  rt: PlanRuntime,
  fleet: FleetSpec,
  start: number,
  precision = 0.02,
): Promise<FleetResult> {
  const ev = new Evaluator(q, rt);
  const probes: FleetProbe[] = [];
  const probe = async (rate: number): Promise<FleetProbe> => {
    const [e] = await ev.evaluate([
      { shape: fleet.shape, units: fleet.copies, rate, requests: q.base.numRequests ?? defaultRequests(rate) },
    ]);
    const v = judge(e!, q.slos, q.seedRule, q.minCompletionRatio);
    const p = { rate, feasible: v.feasible, reason: v.reason };
    probes.push(p);
    return p;
  };
  let lo: number | null = null;
  let hi: number | null = null;
  let binding = "";
  try {
    for (let r = start; r >= MIN_RATE && r <= MAX_RATE;) {
      const p = await probe(r);
      if (p.feasible) lo = r;
      else [hi, binding] = [r, p.reason];
      if (lo !== null && hi !== null) break;
      r = p.feasible ? r * 2 : r / 2;
    }
    while (lo !== null && hi !== null && (hi - lo) / hi > precision) {
      const mid = Math.round(((lo + hi) / 2) * 1000) / 1000;
      const p = await probe(mid);
      if (p.feasible) lo = mid;
      else [hi, binding] = [mid, p.reason];
    }
  } finally {
    await ev.close();
  }
  const sorted = [...probes].sort((a, b) => a.rate - b.rate);
  const violations = sorted.filter((p, i) => p.feasible && sorted.slice(0, i).some((x) => !x.feasible)).length;
  return {
    shape: fleet.shape.id,
    copies: fleet.copies,
    sustained: lo,
    failed: hi,
    binding,
    probes,
    monotonicity_violations: violations,
  };
}
