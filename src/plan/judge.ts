// The verdict on an evaluation: every SLO judged over the seeds, every request served, and what
// the point delivers (tokens/s per GPU and per user, cost).

import type { Evaluation } from "./evaluate.js";
import { judgedValue, margin, meets, type SeedRule, type Slo } from "./slo.js";

export interface SloResult {
  key: string;
  limit: number;
  /** The judged value (worst seed, or the stated quantile); null when a run lacks it. */
  value: number | null;
  /** (limit − value) / limit for latency, (value − limit) / limit for goodput. */
  margin: number | null;
  ok: boolean;
}

export interface Verdict {
  feasible: boolean;
  /** Why not ("" when feasible): the first failed run, unserved requests, or the missed SLOs. */
  reason: string;
  slos: SloResult[];
  /** Output tokens/s of the cluster, mean over seeds. */
  outputTokensPerSec: number | null;
  /** Output tokens/s per request while it decodes: 1000 / mean ITL (ms), mean over seeds. */
  tokensPerSecPerUser: number | null;
}

function mean(xs: readonly (number | null | undefined)[]): number | null {
  if (xs.length === 0 || xs.some((x) => x === null || x === undefined || !Number.isFinite(x))) return null;
  return (xs as number[]).reduce((a, b) => a + b, 0) / xs.length;
}

function fmt(v: number): string {
  return Math.abs(v) >= 100 ? v.toFixed(1) : Number(v.toPrecision(4)).toString();
}

/** Judges an evaluation; `minRatio` is the steady completion ratio every seed must reach. */
/**
 * The ratio counts completions of the second half of the arrivals; requests slower than half the
 * arrival span cannot complete inside it, so a run that short cannot tell.
 */
function tooShort(e: Evaluation, s: Evaluation["seeds"][number]): string {
  const spanS = e.requests / e.rate;
  const e2eS = (s.metrics["e2e_p99"] ?? 0) / 1000;
  return e2eS > spanS / 2
    ? ` [the run is too short to tell: E2E p99 ${e2eS.toFixed(1)} s exceeds half the ${spanS.toFixed(1)} s of arrivals; raise --num-requests]`
    : "";
}

export function judge(e: Evaluation, slos: readonly Slo[], rule: SeedRule, minRatio: number): Verdict {
  const failed = e.seeds.find((s) => s.status !== "ok");
  const results = slos.map((slo): SloResult => {
    const value = judgedValue(
      slo,
      e.seeds.map((s) => s.metrics[slo.metric] ?? null),
      rule,
    );
    return {
      key: slo.key,
      limit: slo.limit,
      value,
      margin: value === null ? null : margin(slo, value),
      ok: value !== null && meets(slo, value),
    };
  });
  const reasons: string[] = [];
  if (failed !== undefined) reasons.push(`seed ${failed.seed}: ${failed.status}: ${failed.error}`);
  else {
    const unserved = e.seeds.find((s) => (s.metrics["completed"] ?? 0) < (s.metrics["injected"] ?? 0));
    const behind = e.seeds.find((s) => (s.metrics["steady_completion_ratio"] ?? 1) < minRatio);
    if (behind !== undefined) {
      const r = behind.metrics["steady_completion_ratio"]!;
      reasons.push(
        `seed ${behind.seed}: does not keep up with the load (${r.toFixed(3)} completions per arrival in the second half < ${minRatio})${tooShort(e, behind)}`,
      );
    }
    if (unserved !== undefined) {
      const lost = (unserved.metrics["injected"] ?? 0) - (unserved.metrics["completed"] ?? 0);
      reasons.push(`seed ${unserved.seed}: ${lost} of ${unserved.metrics["injected"]} requests not served`);
    }
    results.forEach((r, i) => {
      if (r.ok) return;
      const op = slos[i]!.kind === "goodput" ? "<" : ">";
      reasons.push(r.value === null ? `no ${r.key} value` : `${r.key} ${fmt(r.value)} ${op} ${r.limit}`);
    });
  }
  const itl = mean(e.seeds.map((s) => s.metrics["itl_mean"]));
  return {
    feasible: reasons.length === 0,
    reason: reasons.join("; "),
    slos: results,
    outputTokensPerSec: mean(e.seeds.map((s) => s.metrics["tokens_per_sec"])),
    tokensPerSecPerUser: itl !== null && itl > 0 ? 1000 / itl : null,
  };
}
