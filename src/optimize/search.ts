// The search loop of `blis optimize`: a Latin-hypercube initial design (with the baseline), then
// Bayesian-optimization steps of q points each (GP surrogate + expected improvement, kriging
// believer), every evaluation recorded as it finishes and reused on a rerun. The path is a pure
// function of the space, the batch size and the evaluation results, so a resumed search proposes
// the same points again and finds them in evaluations.jsonl.

import { deriveStreamSeed, Rng } from "../engine/rng.js";
import { defaultJobs, PlanError, SweepPool } from "../experiment/index.js";
import { proposeBatch } from "./acquisition.js";
import { decodePoint, encodePoint, featureGroups, latinHypercube, pointKey, pointRecord, randomPoint, type Point } from "./design.js";
import { assess, inputFor, runBatch, type BatchItem, type Evaluated } from "./evaluate.js";
import { fitSurrogate } from "./gp.js";
import type { OptimizeSpace } from "./space.js";
import { OptimizeDir, type EvalRecord } from "./store.js";
import { SpaceError } from "./errors.js";

export interface OptimizeOptions {
  /** Output directory (resume log and result files). */
  outDir: string;
  /** Worker threads, and the batch size q of a new search (default: the number of CPUs). */
  jobs?: number;
  /** Discard the evaluations already in outDir. */
  restart?: boolean;
  /** One line per finished evaluation on stderr (default true). */
  progress?: boolean;
  stderr?: (line: string) => void;
}

export interface OptimizeResult {
  space: OptimizeSpace;
  /** Evaluations in order (#1 = index 0). */
  evaluations: Evaluated[];
  baseline: Evaluated | null;
  /** The best feasible evaluation, or null when none is feasible. */
  best: Evaluated | null;
  /** Points per Bayesian-optimization step. */
  batch: number;
  /** Simulations run by this call, and evaluations taken over from the output directory. */
  simulations: number;
  reused: number;
  wallS: number;
  outDir: string;
  notes: string[];
}

/**
 * The function of the objective the GP models and minimizes: the objective or its log (see
 * objective.transform), negated when maximizing. Null when the log is asked for but a value is <= 0.
 */
function gpTarget(space: OptimizeSpace, values: readonly number[]): ((v: number) => number) | null {
  const t = space.objective.transform;
  const useLog = t === "log" || (t === "auto" && values.every((v) => v > 0));
  if (useLog && values.some((v) => !(v > 0))) return null;
  const sign = space.objective.direction === "minimize" ? 1 : -1;
  return useLog ? (v) => sign * Math.log(v) : (v) => sign * v;
}

export function isBetter(space: OptimizeSpace, a: number, b: number): boolean {
  return space.objective.direction === "minimize" ? a < b : a > b;
}

/** The best feasible evaluation (earliest on ties). */
export function bestOf(space: OptimizeSpace, evals: readonly Evaluated[]): Evaluated | null {
  let best: Evaluated | null = null;
  for (const e of evals) {
    if (!e.feasible || e.objective === null) continue;
    if (best === null || isBetter(space, e.objective, best.objective!)) best = e;
  }
  return best;
}

export async function optimize(space: OptimizeSpace, opts: OptimizeOptions): Promise<OptimizeResult> {
  const t0 = performance.now();
  const say = opts.stderr ?? ((l: string) => void process.stderr.write(l + "\n"));
  const progress = opts.progress !== false;
  const jobs = opts.jobs ?? defaultJobs();
  const { out, notes } = OptimizeDir.open(opts.outDir, space, jobs, opts.restart === true);
  for (const n of notes) say(`note: ${n}`);
  const q = out.batch;
  const stored = new Map<string, EvalRecord>();
  for (const r of out.load()) stored.set(r.kind === "baseline" ? "baseline" : `eval:${r.index}`, r);

  let pool: SweepPool | null = null;
  const seenLines = new Set<string>();
  const dedupSay = (l: string): void => {
    if (seenLines.has(l)) return;
    seenLines.add(l);
    say(l);
  };
  let simulations = 0;
  let reused = 0;
  const evaluations: Evaluated[] = [];
  let baseline: Evaluated | null = null;
  const baselineMeans = (): Record<string, number | null> | null => baseline?.means ?? null;
  const needsBaseline = space.constraints.some((c) => c.min?.kind === "baseline" || c.max?.kind === "baseline");
  const label = (e: Evaluated): string => (e.rec.kind === "baseline" ? "baseline" : `#${e.rec.index + 1}`);
  const report = (e: Evaluated): void => {
    if (!progress) return;
    const v = e.objective === null ? "-" : fmtValue(e.objective);
    // `e` may not be in `evaluations` yet (reported as it finishes): count it too.
    const best = bestOf(space, evaluations.includes(e) ? evaluations : [...evaluations, e]);
    const tail = e.feasible ? "" : `  infeasible: ${e.reason}`;
    say(`optimize: ${label(e)} [${e.rec.source}] ${space.objective.metric} = ${v}${best !== null ? `  (best ${fmtValue(best.objective!)})` : ""}${tail}`);
  };

  /** Evaluates the items: stored matching records are reused, the rest are run as one sweep. */
  const evaluateItems = async (items: BatchItem[]): Promise<EvalRecord[]> => {
    const result = new Map<string, EvalRecord>();
    const todo: BatchItem[] = [];
    for (const it of items) {
      const k = it.record.kind === "baseline" ? "baseline" : `eval:${it.record.index}`;
      const old = stored.get(k);
      if (old !== undefined && old.key === it.record.key && old.runs.length === space.seeds.length) {
        result.set(it.label, old);
        reused++;
      } else {
        if (old !== undefined) {
          say(`note: ${it.record.kind === "baseline" ? "the baseline" : `evaluation #${it.record.index + 1}`} in evaluations.jsonl is not the point proposed now; running the new point`);
        }
        todo.push(it);
      }
    }
    if (todo.length > 0) {
      const recs = await runBatch(
        {
          space,
          pool: () => (pool ??= new SweepPool(jobs)),
          say: dedupSay,
          onEvaluation: (rec) => {
            out.append(rec);
            simulations += rec.runs.filter((r) => r.status !== "skipped").length;
            // The baseline is reported once assessed; before it finished, feasibility relative to
            // it is not known yet.
            if (progress && rec.kind === "eval") {
              const e = assess(space, rec, baselineMeans());
              if (baseline !== null || !needsBaseline) report(e);
              else say(`optimize: #${rec.index + 1} [${rec.source}] ${space.objective.metric} = ${e.objective === null ? "-" : fmtValue(e.objective)}`);
            }
          },
        },
        todo,
      );
      todo.forEach((it, i) => result.set(it.label, recs[i]!));
    }
    return items.map((it) => result.get(it.label)!);
  };

  const itemFor = (index: number, source: EvalRecord["source"], pt: Point): BatchItem => ({
    label: `eval-${index + 1}`,
    input: inputFor(space, pt),
    record: { v: 1, kind: "eval", index, source, params: pointRecord(space.parameters, pt), key: pointKey(pt) },
  });

  try {
    // 1. Baseline and the initial design, as one batch.
    const master = BigInt(space.seed);
    const nInit = Math.min(space.initial, space.budget);
    const design = latinHypercube(nInit, space.parameters.length, new Rng(deriveStreamSeed(master, "design"))).map((u) => decodePoint(space.parameters, u));
    const first: BatchItem[] = [];
    if (space.baseline !== null) {
      first.push({ label: "baseline", input: space.baseline, record: { v: 1, kind: "baseline", index: -1, source: "baseline", params: {}, key: "baseline" } });
    }
    design.forEach((pt, i) => first.push(itemFor(i, "design", pt)));
    const firstRecs = await evaluateItems(first);
    let k = 0;
    if (space.baseline !== null) {
      baseline = assess(space, firstRecs[k++]!, null);
      baseline = assess(space, baseline.rec, baseline.means);
      const relative = space.constraints.filter((c) => c.min?.kind === "baseline" || c.max?.kind === "baseline");
      const missing = relative.find((c) => baseline!.means[c.metric] === null);
      if (missing !== undefined) {
        throw new SpaceError(`the baseline has no ${missing.metric} value${baseline.reason !== "" ? ` (${baseline.reason})` : ""}; constraints relative to the baseline cannot be checked`);
      }
      if (progress) report(baseline);
    }
    for (; k < firstRecs.length; k++) evaluations.push(assess(space, firstRecs[k]!, baselineMeans()));

    // 2. Bayesian optimization steps.
    while (evaluations.length < space.budget) {
      const n = evaluations.length;
      const qNow = Math.min(q, space.budget - n);
      const rng = new Rng(deriveStreamSeed(master, `step-${n}`));
      const points = evaluations.map((e) => decodeFromRecord(space, e.rec));
      const exclude = new Set(points.map(pointKey));
      const observed = evaluations.filter((e) => e.objective !== null).map((e) => e.objective!);
      const target = gpTarget(space, observed);
      let proposals: { point: Point; source: EvalRecord["source"] }[];
      if (target === null) {
        throw new SpaceError(`objective.transform log needs ${space.objective.metric} > 0, but an evaluation gave ${observed.find((v) => !(v > 0))}; use transform: none`);
      }
      const finite = observed.map(target);
      if (finite.length < 2) {
        // Nothing to model yet: keep exploring at random.
        proposals = [];
        for (let tries = 0; proposals.length < qNow && tries < 1000 * qNow; tries++) {
          const pt = randomPoint(space.parameters, rng);
          if (exclude.has(pointKey(pt))) continue;
          exclude.add(pointKey(pt));
          proposals.push({ point: pt, source: "random" });
        }
      } else {
        const worst = Math.max(...finite);
        // Infeasible evaluations (constraint violated, failed run) count as the worst value seen.
        const y = evaluations.map((e) => (e.feasible && e.objective !== null ? target(e.objective) : worst));
        const X = points.map((p) => encodePoint(space.parameters, p));
        const sur = fitSurrogate(X, y, { kernel: "matern52", groups: featureGroups(space.parameters) });
        const feasibleZ = sur.z.filter((_, i) => evaluations[i]!.feasible);
        const bestZ = Math.min(...(feasibleZ.length > 0 ? feasibleZ : sur.z));
        proposals = proposeBatch(space.parameters, sur, points, bestZ, qNow, rng, exclude).map((p) => ({ point: p.point, source: "bo" as const }));
      }
      if (proposals.length === 0) {
        say(`note: every point of the search space has been evaluated; stopping after ${n} evaluations`);
        break;
      }
      const recs = await evaluateItems(proposals.map((p, i) => itemFor(n + i, p.source, p.point)));
      for (const r of recs) evaluations.push(assess(space, r, baselineMeans()));
    }
  } catch (e) {
    if (e instanceof PlanError) throw new SpaceError(e.message);
    throw e;
  } finally {
    out.close();
    if (pool !== null) await (pool as SweepPool).close();
  }
  return {
    space,
    evaluations,
    baseline,
    best: bestOf(space, evaluations),
    batch: q,
    simulations,
    reused,
    wallS: (performance.now() - t0) / 1000,
    outDir: opts.outDir,
    notes,
  };
}

/** The point of a stored evaluation (parameter order). */
export function decodeFromRecord(space: OptimizeSpace, rec: EvalRecord): Point {
  return space.parameters.map((p) => rec.params[p.name]!);
}

export function fmtValue(v: number): string {
  if (!Number.isFinite(v)) return String(v);
  if (Number.isInteger(v) && Math.abs(v) < 1e15) return String(v);
  const a = Math.abs(v);
  if (a >= 1000) return v.toFixed(1);
  if (a >= 1) return v.toFixed(3);
  return v.toPrecision(4);
}
