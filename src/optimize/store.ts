// The output directory of `blis optimize`: space.json (identity of the search), evaluations.jsonl
// (one fsynced JSON line per finished evaluation, the resume log), and the result files.

import fs from "node:fs";
import path from "node:path";
import { prepareStoreDir, ResumableStore, type StoreLayout, type StoreState } from "../util/resumableStore.js";
import type { ParamValue } from "./parameters.js";
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
  return (
    v !== null &&
    typeof v === "object" &&
    (v as { v?: unknown }).v === 1 &&
    Array.isArray((v as { runs?: unknown }).runs)
  );
}

export const STATE_FILE = "space.json";
export const LOG_FILE = "evaluations.jsonl";
export const RESULT_FILES = [
  "evaluations.csv",
  "evaluations.json",
  "convergence.md",
  "best.yaml",
  "best-command.txt",
  "workload.yaml",
];

interface StateFile extends StoreState {
  name: string;
  hash: string;
  source: string | null;
  /** Points proposed per Bayesian-optimization step (fixed at the first run: it shapes the search path). */
  batch: number;
}

const LAYOUT: StoreLayout<EvalRecord> = {
  stateFile: STATE_FILE,
  logFile: LOG_FILE,
  format: "blis-optimize/1",
  isRecord: isEvalRecord,
  error: (m) => new SpaceError(m),
  results: "evaluations",
  origin: "search",
};

export class OptimizeDir extends ResumableStore<EvalRecord> {
  private constructor(
    dir: string,
    readonly batch: number,
  ) {
    super(dir, LAYOUT);
  }

  /**
   * Opens (or creates) `dir` for a space. A directory holding another space's evaluations is
   * refused unless `restart` (which removes them). The batch size of a resumed search is the one
   * it started with. Returns notes for stderr.
   */
  static open(
    dir: string,
    space: { name: string; hash: string; source: string | null },
    batch: number,
    restart: boolean,
  ): { out: OptimizeDir; notes: string[] } {
    let useBatch = batch;
    const notes = prepareStoreDir<EvalRecord, StateFile>(dir, LAYOUT, {
      restart,
      clear: () => {
        for (const f of [STATE_FILE, LOG_FILE, ...RESULT_FILES]) fs.rmSync(path.join(dir, f), { force: true });
      },
      resume: (old) => {
        if (old.hash !== space.hash) {
          throw new SpaceError(
            `${path.join(dir, STATE_FILE)}: the search space changed since the evaluations in this directory (space hash ${old.hash.slice(0, 12)} → ${space.hash.slice(0, 12)}); rerun with --restart to discard them, or use another --out`,
          );
        }
        if (!(Number.isInteger(old.batch) && old.batch >= 1 && old.batch !== batch)) return [];
        useBatch = old.batch;
        return [
          `resuming with the batch size the search started with (${old.batch} points per step; --jobs ${batch} only sets the worker processes)`,
        ];
      },
      state: () => ({
        format: LAYOUT.format,
        name: space.name,
        hash: space.hash,
        source: space.source,
        batch: useBatch,
      }),
    });
    return { out: new OptimizeDir(dir, useBatch), notes };
  }

  /** Reads evaluations.jsonl (the last record per evaluation wins; see JsonlLog for torn lines). */
  load(): EvalRecord[] {
    return this.loadLog();
  }

  /** Appends one record and fsyncs it. */
  append(rec: EvalRecord): void {
    this.appendLog(rec);
  }
}
