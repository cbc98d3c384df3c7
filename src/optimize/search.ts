// The search loop of `blis optimize`: a Latin-hypercube initial design (with the baseline), then
// Bayesian-optimization steps of q points each (GP surrogate + expected improvement, kriging
// believer), every evaluation recorded as it finishes and reused on a rerun. No point is
// evaluated twice: the budget goes to new points, and a search that runs out of them stops. The
// path is a pure function of the space, the batch size and the evaluation results, so a resumed
// search proposes the same points again and finds them in evaluations.jsonl.

import { defaultJobs, PlanError, SweepPool, type RunExecutor } from "../experiment/index.js";
import { pointKey, pointRecord, type Point } from "./design.js";
import { assess, bestOf, inputFor, runBatch, type BatchItem, type Evaluated } from "./evaluate.js";
import { BaselineError, SpaceError } from "./errors.js";
import { ENUMERATE_LIMIT, initialDesign, searchRng, spaceSize } from "./grid.js";
import type { Constraint } from "./objective.js";
import { preflight } from "./preflight.js";
import { Progress } from "./progress.js";
import type { OptimizeSpace } from "./space.js";
import { proposeStep } from "./step.js";
import { OptimizeDir, type EvalRecord } from "./store.js";

export interface OptimizeOptions {
  /** Output directory (resume log and result files). */
  outDir: string;
  /** Worker threads, and the batch size q of a new search (default: the number of CPUs). */
  jobs?: number;
  /** Discard the evaluations already in outDir. */
  restart?: boolean;
  /** One line per finished evaluation on stderr (default true): k/budget, best so far, ETA. */
  progress?: boolean;
  stderr?: (line: string) => void;
  /** Runs the simulations instead of a local pool (a work queue); kept open by the caller. */
  pool?: RunExecutor;
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
  /** Why the search stopped before its budget was spent (no new point left), or null. */
  stoppedEarly: string | null;
}

export async function optimize(space: OptimizeSpace, opts: OptimizeOptions): Promise<OptimizeResult> {
  const t0 = performance.now();
  // Before the output directory is opened: a space no run can start with leaves nothing behind.
  await preflight(space);
  const run = new SearchRun(space, opts);
  try {
    await run.evaluateInitialDesign();
    await run.runSteps();
  } catch (e) {
    if (e instanceof PlanError) throw new SpaceError(e.message);
    throw e;
  } finally {
    await run.close();
  }
  return run.result(opts.outDir, (performance.now() - t0) / 1000);
}

function isRelativeToBaseline(c: Constraint): boolean {
  return c.min?.kind === "baseline" || c.max?.kind === "baseline";
}

/** Where a record is found in evaluations.jsonl: the baseline, or an evaluation by its index. */
function storedKey(rec: Pick<EvalRecord, "kind" | "index">): string {
  return rec.kind === "baseline" ? "baseline" : `eval:${rec.index}`;
}

/** One call of optimize(): the output directory, the evaluations so far, and what it reports. */
class SearchRun {
  readonly evaluations: Evaluated[] = [];
  baseline: Evaluated | null = null;
  /** Simulations run by this call, and evaluations taken over from the output directory. */
  simulations = 0;
  reused = 0;
  stoppedEarly: string | null = null;
  private readonly say: (line: string) => void;
  private readonly progress: Progress;
  private readonly jobs: number;
  private readonly out: OptimizeDir;
  private readonly notes: string[];
  /** Points per step: --jobs for a new search, the stored batch size for a resumed one. */
  private readonly batch: number;
  /** evaluations.jsonl by storedKey(). */
  private readonly stored = new Map<string, EvalRecord>();
  /** Started with the first simulation (a fully reused search starts no workers). */
  private pool: SweepPool | null = null;
  private readonly executor: RunExecutor | undefined;
  /** Sweep-engine warnings already shown: every batch is its own sweep and would repeat them. */
  private readonly shownWarnings = new Set<string>();

  constructor(
    readonly space: OptimizeSpace,
    opts: OptimizeOptions,
  ) {
    this.say = opts.stderr ?? ((l: string) => void process.stderr.write(l + "\n"));
    this.progress = new Progress(space, this.say, opts.progress !== false);
    this.jobs = opts.jobs ?? defaultJobs();
    this.executor = opts.pool;
    const { out, notes } = OptimizeDir.open(opts.outDir, space, this.jobs, opts.restart === true);
    for (const n of notes) this.say(`note: ${n}`);
    this.out = out;
    this.notes = notes;
    this.batch = out.batch;
    for (const r of out.load()) this.stored.set(storedKey(r), r);
  }

  /** The baseline and the Latin-hypercube design (without duplicates), evaluated as one batch. */
  async evaluateInitialDesign(): Promise<void> {
    const { space } = this;
    const design = initialDesign(space);
    const items: BatchItem[] = [];
    if (space.baseline !== null) {
      items.push({
        label: "baseline",
        input: space.baseline,
        record: { v: 1, kind: "baseline", index: -1, source: "baseline", params: {}, key: "baseline" },
      });
    }
    design.forEach((pt, i) => items.push(this.itemFor(i, "design", pt)));
    const recs = await this.evaluateItems(items);
    if (space.baseline !== null) this.acceptBaseline(recs.shift()!);
    for (const rec of recs) this.evaluations.push(assess(space, rec, this.baselineMeans()));
  }

  /** Bayesian-optimization steps until the budget is spent or no new point is left. */
  async runSteps(): Promise<void> {
    const { space } = this;
    while (this.evaluations.length < space.budget) {
      const n = this.evaluations.length;
      const proposals = proposeStep(
        space,
        this.evaluations,
        Math.min(this.batch, space.budget - n),
        searchRng(space, `step-${n}`),
      );
      if (proposals.length === 0) {
        const size = spaceSize(space.parameters);
        this.stoppedEarly =
          size <= ENUMERATE_LIMIT
            ? `the search space has ${size} points and every one has been evaluated`
            : "no point that has not been evaluated was found";
        this.say(`note: ${this.stoppedEarly}; stopping after ${n} of budget ${space.budget} evaluations`);
        break;
      }
      const recs = await this.evaluateItems(proposals.map((p, i) => this.itemFor(n + i, p.source, p.point)));
      for (const rec of recs) this.evaluations.push(assess(space, rec, this.baselineMeans()));
    }
  }

  async close(): Promise<void> {
    this.out.close();
    if (this.pool !== null) await this.pool.close();
  }

  result(outDir: string, wallS: number): OptimizeResult {
    const { space, evaluations, baseline, simulations, reused } = this;
    return {
      space,
      evaluations,
      baseline,
      best: bestOf(space, evaluations),
      batch: this.batch,
      simulations,
      reused,
      wallS,
      outDir,
      notes: this.notes,
      stoppedEarly: this.stoppedEarly,
    };
  }

  private itemFor(index: number, source: EvalRecord["source"], pt: Point): BatchItem {
    return {
      label: `eval-${index + 1}`,
      input: inputFor(this.space, pt),
      record: { v: 1, kind: "eval", index, source, params: pointRecord(this.space.parameters, pt), key: pointKey(pt) },
    };
  }

  /** Assesses the baseline against itself; constraints relative to it need its values. */
  private acceptBaseline(rec: EvalRecord): void {
    const first = assess(this.space, rec, null);
    const baseline = assess(this.space, first.rec, first.means);
    this.baseline = baseline;
    const missing = this.space.constraints.filter(isRelativeToBaseline).find((c) => baseline.means[c.metric] === null);
    if (missing !== undefined) {
      throw new BaselineError(
        `the baseline has no ${missing.metric} value${baseline.reason !== "" ? ` (${baseline.reason})` : ""}; constraints relative to the baseline cannot be checked`,
      );
    }
    this.progress.baseline(baseline);
  }

  private baselineMeans(): Record<string, number | null> | null {
    return this.baseline?.means ?? null;
  }

  /** Evaluates the items: stored matching records are reused, the rest are run as one sweep. */
  private async evaluateItems(items: BatchItem[]): Promise<EvalRecord[]> {
    const result = new Map<string, EvalRecord>();
    const todo: BatchItem[] = [];
    for (const it of items) {
      const old = this.reusable(it);
      if (old !== null) {
        result.set(it.label, old);
        this.progress.add(old);
        this.reused++;
      } else todo.push(it);
    }
    if (todo.length > 0) {
      const recs = await runBatch(
        {
          space: this.space,
          pool: () => this.executor ?? (this.pool ??= new SweepPool(this.jobs)),
          say: (line) => this.warnOnce(line),
          onEvaluation: (rec) => this.recordEvaluation(rec),
        },
        todo,
      );
      todo.forEach((it, i) => result.set(it.label, recs[i]!));
    }
    return items.map((it) => result.get(it.label)!);
  }

  /** The stored record of the item's evaluation when it is the same point over every seed, else null. */
  private reusable(it: BatchItem): EvalRecord | null {
    const old = this.stored.get(storedKey(it.record));
    if (old === undefined) return null;
    if (old.key === it.record.key && old.runs.length === this.space.seeds.length) return old;
    this.say(
      `note: ${it.record.kind === "baseline" ? "the baseline" : `evaluation #${it.record.index + 1}`} in evaluations.jsonl is not the point proposed now; running the new point`,
    );
    return null;
  }

  private warnOnce(line: string): void {
    if (this.shownWarnings.has(line)) return;
    this.shownWarnings.add(line);
    this.say(line);
  }

  /** Logs a finished evaluation (as soon as its last seed finished) and shows its progress line. */
  private recordEvaluation(rec: EvalRecord): void {
    this.out.append(rec);
    this.simulations += rec.runs.filter((r) => r.status !== "skipped").length;
    this.progress.simulated();
    // The baseline's line waits until it is assessed against itself (acceptBaseline).
    if (rec.kind !== "eval") return;
    this.progress.add(rec);
    this.progress.evaluation(rec);
  }
}
