// The Pareto frontier of tokens/s per GPU against tokens/s per user over every point the search
// ran that met the SLOs: a point is on it when no other point is at least as good on both and
// better on one.

import type { PlanResult } from "./plan.js";
import { gpusOf } from "./shapes.js";

export interface ParetoPoint {
  shape: string;
  copies: number;
  gpus: number;
  tokens_per_sec_per_gpu: number;
  tokens_per_sec_per_user: number;
  on_frontier: boolean;
}

/** Every feasible point run (one per shape and copies), flagged when on the frontier. */
export function paretoFrontier(r: PlanResult): ParetoPoint[] {
  const pts: ParetoPoint[] = [];
  for (const s of r.searches) {
    for (const p of s.path) {
      const tps = p.verdict.outputTokensPerSec;
      const user = p.verdict.tokensPerSecPerUser;
      if (!p.feasible || tps === null || user === null) continue;
      const gpus = gpusOf(s.shape, p.units);
      pts.push({
        shape: s.shape.id,
        copies: p.units,
        gpus,
        tokens_per_sec_per_gpu: Math.round((tps / gpus) * 100) / 100,
        tokens_per_sec_per_user: Math.round(user * 100) / 100,
        on_frontier: false,
      });
    }
  }
  for (const a of pts) {
    a.on_frontier = !pts.some(
      (b) =>
        b !== a &&
        b.tokens_per_sec_per_gpu >= a.tokens_per_sec_per_gpu &&
        b.tokens_per_sec_per_user >= a.tokens_per_sec_per_user &&
        (b.tokens_per_sec_per_gpu > a.tokens_per_sec_per_gpu || b.tokens_per_sec_per_user > a.tokens_per_sec_per_user),
    );
  }
  return pts.sort(
    (a, b) =>
      a.tokens_per_sec_per_user - b.tokens_per_sec_per_user || a.shape.localeCompare(b.shape) || a.copies - b.copies,
  );
}
