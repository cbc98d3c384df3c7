// `blis plan` as a library call: the cheapest fleet that meets the SLOs over the candidate space.

import { buildCandidates, type SkippedShape } from "./candidates.js";
import { Evaluator } from "./evaluate.js";
import { gpuPrice } from "./prices.js";
import type { PlanQuestion, PlanRuntime } from "./question.js";
import { checkMonotonicity, rankKey, searchShapes, type MonotonicityReport, type ShapeSearch } from "./search.js";
import type { OfferedLoad } from "./bound.js";
import { compareKeys } from "./rank.js";

export interface PlanResult {
  question: PlanQuestion;
  load: OfferedLoad;
  searches: ShapeSearch[];
  skipped: SkippedShape[];
  /** The winning shape (its minimum copies are `hi`), or null when nothing met the SLOs. */
  best: ShapeSearch | null;
  monotonicity: MonotonicityReport;
  steps: number;
  /** Simulations the search path stands for (points × seeds), run now or reused from the output directory. */
  simulations: number;
  /** Simulations run by this call (the rest were reused). */
  executed: number;
  /** Simulations an exhaustive sweep of 1..maxUnits copies of every runnable shape would run. */
  exhaustive: number;
  /** Why nothing was feasible (the constraint that bound), or "". */
  bindingConstraint: string;
  backends: Map<string, string>;
}

export function checkPrices(q: PlanQuestion): void {
  if (q.gpusGiven) for (const g of q.gpus) gpuPrice(q.prices, g);
}

export async function runPlan(q: PlanQuestion, rt: PlanRuntime): Promise<PlanResult> {
  checkPrices(q);
  const space = await buildCandidates(q);
  const ev = new Evaluator(q, rt);
  let steps = 0;
  try {
    steps = await searchShapes(q, ev, space.searches, {
      onStep: (step, active, best) => {
        if (!rt.progress) return;
        const b = best === null ? "none yet" : `${best.shape.id} x${best.hi}`;
        rt.say(`plan: step ${step}, ${active} shapes searching, ${ev.simulations} simulations, best ${b}`);
      },
    });
  } finally {
    await ev.close();
  }
  const found = space.searches.filter((s) => s.hi !== null && s.end === "found");
  const best = found.reduce<ShapeSearch | null>(
    (b, s) => (b === null || compareKeys(rankKey(s, s.hi!), rankKey(b, b.hi!)) < 0 ? s : b),
    null,
  );
  return {
    question: q,
    load: space.load,
    searches: space.searches,
    skipped: space.skipped,
    best,
    monotonicity: checkMonotonicity(space.searches),
    steps,
    simulations: space.searches.reduce((n, s) => n + s.path.length, 0) * q.seeds.length,
    executed: ev.simulations,
    exhaustive: space.searches.length * q.maxUnits * q.seeds.length,
    bindingConstraint: best === null ? bindingConstraint(q, space.searches) : "",
    backends: space.backends,
  };
}

/** The requirement a point missed besides the SLOs, in a few words. */
function unmetRequirement(reason: string): string {
  if (reason.includes("does not keep up")) return "keeping up with the load";
  if (reason.includes("not served")) return "serving every request";
  return "runs that failed";
}

/** Which SLO failed at the most copies tried of every shape, in one phrase. */
function bindingConstraint(q: PlanQuestion, searches: readonly ShapeSearch[]): string {
  const counts = new Map<string, number>();
  for (const s of searches) {
    const last = [...s.path].sort((a, b) => b.units - a.units)[0];
    if (last === undefined) continue;
    const keys = last.verdict.slos.filter((r) => !r.ok).map((r) => r.key);
    if (keys.length === 0 && !last.feasible) keys.push(unmetRequirement(last.reason));
    for (const k of keys) counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  const ranked = [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  if (ranked.length === 0) return "no shape was run";
  const [key, n] = ranked[0]!;
  return `${key} bound ${n} of ${searches.length} shapes at the most copies tried (up to --max-replicas ${q.maxUnits})`;
}
