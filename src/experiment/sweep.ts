// The sweep engine: runs every (configuration, seed) of a plan on a pool of worker processes, records
// each finished run durably, resumes from an output directory, and builds the report.

import fs from "node:fs";
import path from "node:path";
import {
  planFromCells,
  planHashes,
  type CellSpec,
  type CellsPlanOptions,
  type SweepConfig,
  type SweepPlan,
} from "./plan.js";
import { defaultJobs, SweepPool, type RunExecutor, type RunOutcome } from "./pool.js";
import { createProgress, type ProgressMode } from "./progress.js";
import { buildReport, indexRecords, sweepExitStatus, type SweepReport } from "./report.js";
import { renderCsvTable, renderCsv, renderJson, renderMarkdown, renderText, reportTables } from "./render.js";
import { CSV_DIR, OutDir, REPORT_FILES, runKey, type RunRecord } from "./store.js";

export interface SweepOptions {
  /** Output directory (results, stdout files, tables); omitted = nothing is written, no resume. */
  outDir?: string | null;
  /** Worker threads; default: the number of CPUs. Ignored when `pool` is given. */
  jobs?: number;
  /** Discard the results already in outDir instead of refusing a changed plan. */
  restart?: boolean;
  /** Progress on stderr; default "none" for the library ("auto" = bar on a terminal, else lines). */
  progress?: ProgressMode;
  /** Sink for notes, warnings and progress lines (default: process.stderr). */
  stderr?: (line: string) => void;
  /** A pool or work queue kept open by the caller (e.g. an optimizer evaluating many plans). */
  pool?: RunExecutor;
  /** Cancels the sweep: in-flight runs are terminated and not recorded; runSweep rejects. */
  signal?: AbortSignal;
  /**
   * Called once per run executed by this call, as soon as it is recorded (after runs.jsonl, when
   * an output directory is used), with the run's configuration. Not called for reused runs.
   */
  onRecord?: (record: RunRecord, config: SweepConfig) => void;
  /**
   * Runs only slice `index` (0-based) of `count`: the (configuration, seed) pairs whose position in
   * plan order is `index` modulo `count`. No tables are written; `blis sweep merge` combines the slices.
   */
  shard?: Shard;
}

export interface Shard {
  index: number;
  count: number;
}

export interface SweepResult {
  plan: SweepPlan;
  report: SweepReport;
  /** The run records the report was built from (latest per run), in config, seed, repetition order. */
  records: RunRecord[];
  /** Runs executed by this call / taken over from the output directory. */
  executed: number;
  reused: number;
  /**
   * 0 when every requested check passed and no run failed (or the plan allows failures), else 1
   * (README.md "Sweeps: `blis sweep`").
   */
  exitStatus: 0 | 1;
  outDir: string | null;
}

export interface Task {
  config: SweepConfig;
  seed: number;
  rep: number;
  key: string;
}

type Say = (line: string) => void;

/** What the execution of the remaining runs reads and updates. */
interface SweepRun {
  plan: SweepPlan;
  options: SweepOptions;
  out: OutDir | null;
  /** Latest record per run key; each executed run is added as it is recorded. */
  records: Map<string, RunRecord>;
  say: Say;
}

/** Failed runs named one by one on stderr; the rest are summed up in one line. */
const MAX_FAILURE_WARNINGS = 20;

/** Runs a parsed plan (see loadPlan / parsePlan / planFromCells). */
export async function runSweep(plan: SweepPlan, options: SweepOptions = {}): Promise<SweepResult> {
  const say = options.stderr ?? ((l: string) => void process.stderr.write(l + "\n"));
  const hashes = planHashes(plan);
  const outDir = options.outDir ?? null;
  const out = outDir !== null ? openOutDir(outDir, plan, hashes, options.restart === true, say) : null;
  try {
    const tasks = sweepTasks(plan, options.shard);
    const records = indexRecords(out?.loadRecords() ?? []);
    const { todo, reused } = reuseFinishedRuns(tasks, records, plan, out);
    for (const w of plan.warnings) say(`warning: ${w}`);

    let executed = 0;
    if (todo.length === 0 && (options.progress ?? "none") !== "none") {
      say(`sweep: ${tasks.length} runs, ${reused} already finished, 0 to run`);
    }
    if (todo.length > 0) executed = await executeRuns({ plan, options, out, records, say }, todo, tasks.length, reused);

    const report = buildReport(plan, records);
    warnFailedRuns(report, say);
    if (out !== null && options.shard === undefined) writeTables(out, report);
    const ordered = tasks.map((t) => records.get(t.key)).filter((r): r is RunRecord => r !== undefined);
    return { plan, report, records: ordered, executed, reused, exitStatus: sweepExitStatus(report), outDir };
  } finally {
    out?.close();
  }
}

function openOutDir(
  dir: string,
  plan: SweepPlan,
  hashes: ReturnType<typeof planHashes>,
  restart: boolean,
  say: Say,
): OutDir {
  const opened = OutDir.open(dir, plan, hashes, restart);
  for (const n of opened.notes) say(`note: ${n}`);
  return opened.out;
}

/**
 * Every run of the plan (of one shard) in config, seed, repetition order; a second repetition
 * checks determinism and stays in the shard of its first run.
 */
export function sweepTasks(plan: SweepPlan, shard?: Shard): Task[] {
  const reps = plan.checks.determinism ? [0, 1] : [0];
  const tasks: Task[] = [];
  let pair = 0;
  for (const config of plan.configs) {
    for (const seed of plan.seeds) {
      if (shard === undefined || pair % shard.count === shard.index) {
        for (const rep of reps) tasks.push({ config, seed, rep, key: runKey(config.label, seed, rep) });
      }
      pair++;
    }
  }
  return tasks;
}

/**
 * Splits the tasks into runs already recorded (their files rewritten) and runs still to do; a
 * timeout recorded under a shorter limit is run again. Records of runs the plan no longer has
 * are dropped from `records`.
 */
function reuseFinishedRuns(
  tasks: Task[],
  records: Map<string, RunRecord>,
  plan: SweepPlan,
  out: OutDir | null,
): { todo: Task[]; reused: number } {
  const wanted = new Set(tasks.map((t) => t.key));
  const todo: Task[] = [];
  let reused = 0;
  for (const t of tasks) {
    const r = records.get(t.key);
    if (r !== undefined && !(r.status === "timeout" && r.timeout_s < plan.timeoutS)) {
      reused++;
      out?.writeRunFiles(t.config, r, true);
    } else todo.push(t);
  }
  for (const k of [...records.keys()]) if (!wanted.has(k)) records.delete(k);
  return { todo, reused };
}

/** Runs the remaining tasks on the pool, recording each as it finishes; returns how many were recorded. */
async function executeRuns(run: SweepRun, todo: Task[], total: number, reused: number): Promise<number> {
  const { plan, options, out, records } = run;
  const jobs = options.pool?.jobs ?? Math.max(1, Math.min(options.jobs ?? defaultJobs(), todo.length));
  const pool: RunExecutor = options.pool ?? new SweepPool(jobs);
  const planId = planHashes(plan).runs;
  const progress = createProgress(options.progress ?? "none", process.stderr, run.say);
  let executed = 0;
  let failed = 0;
  progress.start(total, reused);
  try {
    await dispatch(
      todo,
      jobs,
      options.signal,
      async (t) => {
        const t0 = performance.now();
        const input = { ...t.config.input, seed: t.seed };
        const outcome = await pool.run(input, plan.timeoutS * 1000, options.signal, { plan: planId, key: t.key });
        return {
          outcome,
          wall:
            outcome.kind === "done" && outcome.wallS !== undefined ? outcome.wallS : (performance.now() - t0) / 1000,
        };
      },
      (t, { outcome, wall }) => {
        if (outcome.kind === "cancelled") return;
        let rec = toRecord(t, outcome, wall, plan.timeoutS);
        rec = out !== null ? out.append(rec) : (JSON.parse(JSON.stringify(rec)) as RunRecord);
        out?.writeRunFiles(t.config, rec);
        records.set(t.key, rec);
        options.onRecord?.(rec, t.config);
        executed++;
        if (rec.status !== "ok") failed++;
        progress.tick(reused + executed, failed);
      },
    );
  } finally {
    progress.stop();
    if (options.pool === undefined) await pool.close();
  }
  if (options.signal?.aborted) throw new Error("sweep cancelled");
  return executed;
}

function warnFailedRuns(report: SweepReport, say: Say): void {
  for (const f of report.failures.slice(0, MAX_FAILURE_WARNINGS)) {
    say(`warning: run ${f.config} seed ${f.seed}${f.run > 1 ? ` (repetition)` : ""}: ${f.status}: ${f.error}`);
  }
  if (report.failures.length > MAX_FAILURE_WARNINGS) {
    say(`warning: … and ${report.failures.length - MAX_FAILURE_WARNINGS} more failed runs (see the failed-runs table)`);
  }
}

/** Builds a plan from in-memory cells and runs it (see planFromCells). */
export async function runCells(cells: CellSpec[], options: CellsPlanOptions & SweepOptions = {}): Promise<SweepResult> {
  return runSweep(planFromCells(cells, options), options);
}

/**
 * Keeps at most `jobs` tasks in flight, in task order. A lane hands its worker the next task
 * before doing the bookkeeping of the one that just finished, so workers do not wait for the
 * main thread's file writes.
 */
async function dispatch<T, R>(
  items: T[],
  jobs: number,
  signal: AbortSignal | undefined,
  run: (t: T) => Promise<R>,
  finish: (t: T, r: R) => void,
): Promise<void> {
  let next = 0;
  const take = (): T | undefined => (next < items.length && !signal?.aborted ? items[next++] : undefined);
  const lane = async (): Promise<void> => {
    let t = take();
    let pending = t === undefined ? null : run(t);
    while (t !== undefined && pending !== null) {
      const r = await pending;
      const n = take();
      pending = n === undefined ? null : run(n);
      try {
        finish(t, r);
      } catch (e) {
        await pending?.catch(() => undefined);
        throw e;
      }
      t = n;
    }
  };
  await Promise.all(Array.from({ length: Math.min(jobs, items.length) }, lane));
}

function toRecord(t: Task, o: Exclude<RunOutcome, { kind: "cancelled" }>, wall: number, timeoutS: number): RunRecord {
  const base = {
    v: 1 as const,
    config: t.config.label,
    config_index: t.config.index,
    seed: t.seed,
    rep: t.rep,
    timeout_s: timeoutS,
    wall_s: Math.round(wall * 1000) / 1000,
  };
  switch (o.kind) {
    case "done": {
      const r = o.result;
      return {
        ...base,
        status: r.exitCode === 0 ? "ok" : `error:${r.exitCode}`,
        error: r.error,
        stdout: r.stdout,
        stderr: r.stderr,
        metrics: r.metrics,
      };
    }
    case "timeout":
      return {
        ...base,
        status: "timeout",
        error: `timeout after ${timeoutS}s (worker terminated)`,
        stdout: "",
        stderr: [],
        metrics: null,
      };
    case "crash":
      return {
        ...base,
        status: "error:2",
        error: `internal error: worker crashed: ${o.message}`,
        stdout: "",
        stderr: [],
        metrics: null,
      };
  }
}

function writeTables(out: OutDir, report: SweepReport): void {
  for (const f of REPORT_FILES) fs.rmSync(path.join(out.dir, f), { force: true });
  out.writeFile("tables.md", renderMarkdown(report));
  out.writeFile("tables.txt", renderText(report));
  out.writeFile("tables.csv", renderCsv(report));
  out.writeFile("summary.json", renderJson(report));
  fs.rmSync(path.join(out.dir, CSV_DIR), { recursive: true, force: true });
  for (const t of reportTables(report, true)) out.writeFile(path.join(CSV_DIR, `${t.id}.csv`), renderCsvTable(t));
}
