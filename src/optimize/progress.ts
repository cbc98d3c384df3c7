// The progress lines of `blis optimize` on stderr, one per finished evaluation:
//
//   optimize: 7/30 #9 [bo] ttft_p99 = 41.250  best 38.324 (#3)  ETA 1m05s
//
// k/budget counts the evaluations finished so far (run now or taken over from the output
// directory). "best" is the best feasible objective among them, chosen as the final table chooses
// it (the baseline is a reference, not a candidate), so it never gets worse from one line to the
// next and its last value is the reported best. Evaluations of one step finish in any order, so
// the best is kept over every finished evaluation, not only over completed steps. The ETA
// extrapolates this call's wall time per simulated evaluation; like any wall-clock value it
// appears on stderr only.

import { assess, bestOf, type Evaluated } from "./evaluate.js";
import { fmtValue } from "./format.js";
import type { OptimizeSpace } from "./space.js";
import type { EvalRecord } from "./store.js";

/** A duration for the ETA: 45s, 3m05s, 1h02m. */
export function fmtDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`;
}

export class Progress {
  /** Finished evaluations by index (a rerun of an index replaces its record). */
  private readonly finished = new Map<number, EvalRecord>();
  /** The baseline's means once it is assessed. */
  private baselineMeans: Record<string, number | null> | null = null;
  private baselinePending: boolean;
  /** Feasibility needs the baseline's values when a constraint is relative to it. */
  private readonly needsBaseline: boolean;
  /** Evaluations (and the baseline) simulated by this call so far. */
  private ran = 0;
  private readonly t0: number;

  constructor(
    private readonly space: OptimizeSpace,
    private readonly say: (line: string) => void,
    private readonly enabled: boolean,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.t0 = now();
    this.baselinePending = space.baseline !== null;
    this.needsBaseline = space.constraints.some((c) => c.min?.kind === "baseline" || c.max?.kind === "baseline");
  }

  /** An evaluation or the baseline was simulated (not taken over from the output directory). */
  simulated(): void {
    this.ran++;
  }

  /** A finished evaluation, simulated or taken over. */
  add(rec: EvalRecord): void {
    if (rec.kind === "eval") this.finished.set(rec.index, rec);
  }

  /** The line of a finished evaluation (already added). */
  evaluation(rec: EvalRecord): void {
    if (!this.enabled) return;
    const known = this.feasibilityKnown();
    const e = assess(this.space, rec, this.baselineMeans);
    this.line(`#${rec.index + 1} [${rec.source}]`, e, known && !e.feasible ? e.reason : "");
  }

  /** The baseline, assessed against itself: from now on feasibility relative to it is known. */
  baseline(b: Evaluated): void {
    this.baselineMeans = b.means;
    this.baselinePending = false;
    if (this.enabled) this.line("baseline", b, b.feasible ? "" : b.reason);
  }

  /** The best feasible evaluation finished so far; undefined while that needs the baseline. */
  best(): Evaluated | null | undefined {
    if (!this.feasibilityKnown()) return undefined;
    const recs = [...this.finished.values()].sort((a, b) => a.index - b.index);
    return bestOf(
      this.space,
      recs.map((r) => assess(this.space, r, this.baselineMeans)),
    );
  }

  /** Estimated wall time left, or "-" before anything was simulated. */
  eta(): string {
    const left = Math.max(0, this.space.budget - this.finished.size) + (this.baselinePending ? 1 : 0);
    if (left === 0) return "0s";
    if (this.ran === 0) return "-";
    return fmtDuration((((this.now() - this.t0) / 1000) * left) / this.ran);
  }

  private feasibilityKnown(): boolean {
    return !this.needsBaseline || this.baselineMeans !== null;
  }

  private line(label: string, e: Evaluated, infeasible: string): void {
    const best = this.best();
    const bestText =
      best === undefined
        ? "after the baseline"
        : best === null
          ? "-"
          : `${fmtValue(best.objective!)} (#${best.rec.index + 1})`;
    const v = e.objective === null ? "-" : fmtValue(e.objective);
    this.say(
      `optimize: ${this.finished.size}/${this.space.budget} ${label} ${this.space.objective.metric} = ${v}  best ${bestText}  ETA ${this.eta()}` +
        (infeasible !== "" ? `  infeasible: ${infeasible}` : ""),
    );
  }
}
