// One experiment at one parameter vector (docs/calibration.md "Fit"): replay it, score the
// simulated latencies against the measured ones, and linearize around the schedule it produced.

import { NUM_FEATURES } from "../../latency/trainedPhysics.js";
import { F_COMPLETED } from "../../core/ledger.js";
import { silentLogger } from "../../util/log.js";
import { replayArrival } from "../../workload/index.js";
import type { FitExperiment } from "../experiments.js";
import { FeatureProbe } from "../features.js";
import { measuredLatency, replay, type ReplayResult } from "../replay.js";
import { addRow, emptyNormalEquations, type NormalEquations } from "./nnls.js";
import { layoutOf, type ParamLayout } from "./layout.js";
import { NUM_PARAMS } from "./params.js";

const K = NUM_FEATURES;

export interface Means {
  ttft: number;
  e2e: number;
  itl: number;
}

/** Errors of one experiment, as fractions. */
export interface ExperimentErrors {
  /** Per-request MAPE (requests target) or APE of the means (means target). */
  ttft: number;
  e2e: number;
  itl: number;
  /** APE of the mean, whatever the target. */
  meanApe: Means;
  /** Means, µs: simulated and measured. */
  sim: Means;
  real: Means;
  /**
   * The fit's criterion: root of the summed squared relative errors of binned means (TTFT by
   * prompt length, E2E and ITL by output length) or of the published means.
   */
  binned: number;
  /** Requests scored, and scored requests that did not complete in the simulation. */
  scored: number;
  incomplete: number;
}

export interface ExperimentEval {
  id: string;
  errors: ExperimentErrors;
  /** Linearized relative-error least squares around this schedule (weight 1 per metric). */
  ne: NormalEquations;
}

/** Linear forms of one request's TTFT, E2E and ITL in θ (alpha parts plus features). */
export function forms(
  layout: ParamLayout,
  p: FeatureProbe,
  seq: number,
  L: number,
  O: number,
  t: Float64Array,
  e: Float64Array,
  i: Float64Array,
): void {
  t.fill(0);
  e.fill(0);
  layout.alphaParts(L, O, p.itlEntries[seq]!, t, e);
  const o = seq * K;
  for (let j = 0; j < K; j++) {
    t[3 + j] = p.ttft[o + j]!;
    e[3 + j] = p.e2e[o + j]!;
  }
  // ITL = (E2E − TTFT) / max(O − 1, 1), α1 included (docs/calibration.md "Calibrate").
  const div = Math.max(O - 1, 1);
  for (let j = 0; j < NUM_PARAMS; j++) i[j] = (e[j]! - t[j]!) / div;
}

export async function evaluateExperiment(x: FitExperiment, theta: ArrayLike<number>): Promise<ExperimentEval> {
  const probe = new FeatureProbe();
  const layout = layoutOf(x.run);
  const res = await replay(x.trace, {
    run: { ...x.run, log: "error" },
    logger: silentLogger,
    coefficients: layout.fromTheta(theta),
    probe,
  });
  const t = tallyRequests(x, res, probe, layout);
  return x.target.kind === "requests" ? requestsEval(x.id, t, theta) : meansEval(x.id, t, x.target);
}

/** Sums over the scored requests of one replay: simulated and measured latencies and their forms. */
interface Tally {
  n: number;
  incomplete: number;
  sim: Means;
  real: Means;
  ape: Means;
  sumT: Float64Array;
  sumE: Float64Array;
  sumI: Float64Array;
  kept: Kept[];
}

function tallyRequests(x: FitExperiment, res: ReplayResult, probe: FeatureProbe, layout: ParamLayout): Tally {
  const l = res.sim.run.ledger;
  const v3 = res.rows.length === 0 || x.trace.layout === "v3";
  const win = x.window ?? [-Infinity, Infinity];
  const ft = new Float64Array(NUM_PARAMS);
  const fe = new Float64Array(NUM_PARAMS);
  const fi = new Float64Array(NUM_PARAMS);
  const t: Tally = {
    n: 0,
    incomplete: 0,
    sim: { ttft: 0, e2e: 0, itl: 0 },
    real: { ttft: 0, e2e: 0, itl: 0 },
    ape: { ttft: 0, e2e: 0, itl: 0 },
    sumT: new Float64Array(NUM_PARAMS),
    sumE: new Float64Array(NUM_PARAMS),
    sumI: new Float64Array(NUM_PARAMS),
    kept: [],
  };
  res.rows.forEach((row, k) => {
    const a = replayArrival(row, v3);
    if (a < win[0] || a >= win[1]) return;
    const seq = res.seqOfRow[k]!;
    const m = x.target.kind === "requests" ? measuredLatency(row) : null;
    if (x.target.kind === "requests" && m === null) return;
    if (seq < 0 || (l.flags[seq]! & F_COMPLETED) === 0) {
      t.incomplete++;
      return;
    }
    const O = row.output_tokens;
    forms(layout, probe, seq, l.inputLen[seq]!, O, ft, fe, fi);
    const st = l.ttft[seq]!;
    const se = l.e2e[seq]!;
    const si = (se - st) / Math.max(O - 1, 1);
    t.n++;
    t.sim.ttft += st;
    t.sim.e2e += se;
    t.sim.itl += si;
    for (let j = 0; j < NUM_PARAMS; j++) {
      t.sumT[j] = t.sumT[j]! + ft[j]!;
      t.sumE[j] = t.sumE[j]! + fe[j]!;
      t.sumI[j] = t.sumI[j]! + fi[j]!;
    }
    if (m === null) return;
    const ri = O > 1 ? (m.e2e - m.ttft) / (O - 1) : 0;
    t.kept.push({
      L: row.prefix_length + row.input_tokens,
      O,
      t: ft.slice(),
      e: fe.slice(),
      i: fi.slice(),
      rt: m.ttft,
      re: m.e2e,
      ri,
    });
    t.real.ttft += m.ttft;
    t.real.e2e += m.e2e;
    t.real.itl += ri;
    if (m.ttft > 0) t.ape.ttft += Math.abs(st - m.ttft) / m.ttft;
    if (m.e2e > 0) t.ape.e2e += Math.abs(se - m.e2e) / m.e2e;
    if (ri > 0) t.ape.itl += Math.abs(si - ri) / ri;
  });
  return t;
}

const relErr = (s: number, r: number): number => (r > 0 ? Math.abs(s - r) / r : 0);
const scale = (m: Means, f: number): Means => ({ ttft: m.ttft * f, e2e: m.e2e * f, itl: m.itl * f });
const meanErrors = (s: Means, r: Means): Means => ({
  ttft: relErr(s.ttft, r.ttft),
  e2e: relErr(s.e2e, r.e2e),
  itl: relErr(s.itl, r.itl),
});

/** Per-request measurements: per-request MAPE, and the binned-mean rows of the criterion. */
function requestsEval(id: string, t: Tally, theta: ArrayLike<number>): ExperimentEval {
  const inv = t.n > 0 ? 1 / t.n : 0;
  const sim = scale(t.sim, inv);
  const real = scale(t.real, inv);
  // Relative residual rows: x·θ/y − 1; each metric of an experiment weighs 1 in total.
  const ne = emptyNormalEquations(NUM_PARAMS);
  const binned = Math.sqrt(binnedRows(t.kept, ne, theta));
  const errors = {
    ...scale(t.ape, inv),
    meanApe: meanErrors(sim, real),
    binned,
    sim,
    real,
    scored: t.n,
    incomplete: t.incomplete,
  };
  return { id, errors, ne };
}

/** Published means only: APE of the means, and one row per metric. */
function meansEval(id: string, t: Tally, target: { ttft_us: number; e2e_us: number; itl_us: number }): ExperimentEval {
  const inv = t.n > 0 ? 1 / t.n : 0;
  const sim = scale(t.sim, inv);
  const real = { ttft: target.ttft_us, e2e: target.e2e_us, itl: target.itl_us };
  const errs = meanErrors(sim, real);
  const ne = emptyNormalEquations(NUM_PARAMS);
  const rowOf = (sum: Float64Array, y: number): Float64Array => sum.map((v) => (v * inv) / y);
  if (t.n > 0) {
    addRow(ne, rowOf(t.sumT, real.ttft), 1, 1);
    addRow(ne, rowOf(t.sumE, real.e2e), 1, 1);
    if (real.itl > 0) addRow(ne, rowOf(t.sumI, real.itl), 1, 1);
  }
  const binned = Math.sqrt(errs.ttft ** 2 + errs.e2e ** 2 + (real.itl > 0 ? errs.itl ** 2 : 0));
  return { id, errors: { ...errs, meanApe: errs, binned, sim, real, scored: t.n, incomplete: t.incomplete }, ne };
}

type Kept = {
  L: number;
  O: number;
  t: Float64Array;
  e: Float64Array;
  i: Float64Array;
  rt: number;
  re: number;
  ri: number;
};
const BINS = 8;

/** Rows (mean form / mean measured ≈ 1) of each bin; each metric weighs 1 in total. */
function bins(kept: readonly Kept[]): { form: Float64Array; y: number; w: number }[] {
  const out: { form: Float64Array; y: number; w: number }[] = [];
  const byL = [...kept].sort((a, b) => a.L - b.L);
  const byO = [...kept].sort((a, b) => a.O - b.O);
  const add = (sorted: Kept[], pick: (k: Kept) => [Float64Array, number]): void => {
    const nb = Math.min(BINS, sorted.length);
    for (let b = 0; b < nb; b++) {
      const part = sorted.slice(Math.floor((b * sorted.length) / nb), Math.floor(((b + 1) * sorted.length) / nb));
      const form = new Float64Array(NUM_PARAMS);
      let y = 0;
      for (const k of part) {
        const [f, v] = pick(k);
        for (let j = 0; j < NUM_PARAMS; j++) form[j] = form[j]! + f[j]! / part.length;
        y += v / part.length;
      }
      if (y > 0) out.push({ form, y, w: 1 / nb });
    }
  };
  add(byL, (k) => [k.t, k.rt]);
  add(byO, (k) => [k.e, k.re]);
  add(
    byO.filter((k) => k.ri > 0),
    (k) => [k.i, k.ri],
  );
  return out;
}

/** Adds the bins' rows to `ne`; returns the weighted squared relative error of the bins at θ. */
function binnedRows(kept: readonly Kept[], ne: NormalEquations, theta: ArrayLike<number>): number {
  let sq = 0;
  for (const b of bins(kept)) {
    addRow(ne, b.form, b.y, b.w / (b.y * b.y));
    let p = 0;
    for (let j = 0; j < NUM_PARAMS; j++) p += b.form[j]! * theta[j]!;
    sq += b.w * ((p - b.y) / b.y) ** 2;
  }
  return sq;
}
