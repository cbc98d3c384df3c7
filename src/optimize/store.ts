// The output directory of `blis optimize`: space.json (identity of the search), evaluations.jsonl
// (one fsynced JSON line per finished evaluation, the resume log), and the result files.

import fs from "node:fs";
import path from "node:path";
import { writeFileAtomic } from "../util/atomicWrite.js";
import { JsonlLog } from "../util/jsonlLog.js";
import type { ParamValue } from "./space.js";
import { SpaceError } from "./errors.js";

/** One simulation of an evaluation. */
export interface SeedRun {
  seed: number;
  /** `ok`, `timeout`, `error:<exit code>`, or `skipped` (the configuration could not be built). */
  status: string;
  error: string;
  /** Values of the recorded metrics (objective, constraints, headline metrics); null = absent. */
  metrics: Record<string, number | null>;
  wall_s: number;
}

/** One evaluated configuration, as stored in evaluations.jsonl. */
export interface EvalRecord {
  v: 1;
  /** `eval` (a search point) or `baseline`. */
  kind: "eval" | "baseline";
  /** 0-based evaluation number; -1 for the baseline. */
  index: number;
  /** How the point was chosen: design (Latin hypercube), bo (expected improvement), random, baseline. */
  source: "design" | "bo" | "random" | "baseline";
  /** Parameter values (name → value); {} for the baseline. */
  params: Record<string, ParamValue>;
  /** Identity of the point (reuse check on resume). */
  key: string;
  runs: SeedRun[];
}

function isEvalRecord(v: unknown): v is EvalRecord {
  return v !== null && typeof v === "object" && (v as { v?: unknown }).v === 1 && Array.isArray((v as { runs?: unknown }).runs);
}

export const STATE_FILE = "space.json";
export const LOG_FILE = "evaluations.jsonl";
export const RESULT_FILES = ["evaluations.csv", "evaluations.json", "convergence.md", "best.yaml", "best-command.txt", "workload.yaml"];

interface StateFile {
  format: string;
  name: string;
  hash: string;
  source: string | null;
  /** Points proposed per Bayesian-optimization step (fixed at the first run: it shapes the search path). */
  batch: number;
}

const FORMAT = "blis-optimize/1";

export class OptimizeDir {
  private readonly log: JsonlLog<EvalRecord>;

  private constructor(
    readonly dir: string,
    readonly batch: number,
  ) {
    this.log = new JsonlLog(path.join(dir, LOG_FILE), isEvalRecord);
  }

  /**
   * Opens (or creates) `dir` for a space. A directory holding another space's evaluations is
   * refused unless `restart` (which removes them). The batch size of a resumed search is the one
   * it started with. Returns notes for stderr.
   */
  static open(dir: string, space: { name: string; hash: string; source: string | null }, batch: number, restart: boolean): { out: OptimizeDir; notes: string[] } {
    const notes: string[] = [];
    try {
      fs.mkdirSync(dir, { recursive: true });
      fs.accessSync(dir, fs.constants.W_OK);
    } catch (e) {
      throw new SpaceError(`${dir}: cannot use as the output directory (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
    }
    const statePath = path.join(dir, STATE_FILE);
    let old: StateFile | null = null;
    if (fs.existsSync(statePath)) {
      try {
        old = JSON.parse(fs.readFileSync(statePath, "utf8")) as StateFile;
      } catch {
        old = null;
      }
    }
    const hasLog = fs.existsSync(path.join(dir, LOG_FILE));
    let useBatch = batch;
    if (restart) {
      if (old !== null || hasLog) notes.push(`--restart: removed the previous evaluations in ${dir}`);
      for (const f of [STATE_FILE, LOG_FILE, ...RESULT_FILES]) fs.rmSync(path.join(dir, f), { force: true });
    } else if (old !== null && old.format === FORMAT) {
      if (old.hash !== space.hash) {
        throw new SpaceError(
          `${statePath}: the search space changed since the evaluations in this directory (space hash ${old.hash.slice(0, 12)} → ${space.hash.slice(0, 12)}); rerun with --restart to discard them, or use another --out`,
        );
      }
      if (Number.isInteger(old.batch) && old.batch >= 1 && old.batch !== batch) {
        notes.push(`resuming with the batch size the search started with (${old.batch} points per step; --jobs ${batch} only sets the worker processes)`);
        useBatch = old.batch;
      }
    } else if (old !== null || hasLog) {
      throw new SpaceError(`${dir}: holds results that do not come from this search (no valid ${STATE_FILE}); rerun with --restart to discard them, or use another --out`);
    }
    const st: StateFile = { format: FORMAT, name: space.name, hash: space.hash, source: space.source, batch: useBatch };
    writeFileAtomic(statePath, JSON.stringify(st, null, 2) + "\n");
    return { out: new OptimizeDir(dir, useBatch), notes };
  }

  /** Reads evaluations.jsonl (the last record per evaluation wins; see JsonlLog for torn lines). */
  load(): EvalRecord[] {
    return this.log.load();
  }

  /** Appends one record and fsyncs it. */
  append(rec: EvalRecord): void {
    this.log.append(rec);
  }

  writeFile(rel: string, data: string): void {
    writeFileAtomic(path.join(this.dir, rel), data);
  }

  close(): void {
    this.log.close();
  }
}
