// The output directory of a sweep: plan.json (plan identity), runs.jsonl (one fsynced JSON line
// per finished run), per-run stdout files, and the final tables.

import fs from "node:fs";
import path from "node:path";
import type { SimulationMetrics } from "../metrics/collect.js";
import { prepareStoreDir, ResumableStore, type StoreLayout, type StoreState } from "../util/resumableStore.js";
import { makeDirs } from "../util/makeDirs.js";
import { PlanError } from "./errors.js";
import type { SweepConfig, SweepPlan } from "./plan.js";

/** One finished run, as stored in runs.jsonl. */
export interface RunRecord {
  v: 1;
  config: string;
  config_index: number;
  seed: number;
  /** 0 = the run; 1 = its repetition for the determinism check. */
  rep: number;
  /** `ok`, `timeout`, or `error:<exit code>`. */
  status: string;
  /** The error line (`error: …`, `panic: …`, `timeout after …`); "" when ok. */
  error: string;
  /** The limit the run had (a timed-out run is retried on resume when the limit grew). */
  timeout_s: number;
  /** Wall seconds (informational; never part of the tables). */
  wall_s: number;
  stdout: string;
  stderr: string[];
  metrics: SimulationMetrics | null;
}

function isRunRecord(v: unknown): v is RunRecord {
  return v !== null && typeof v === "object" && (v as { v?: unknown }).v === 1;
}

export function runKey(label: string, seed: number, rep: number): string {
  return JSON.stringify([label, seed, rep]);
}

export const PLAN_FILE = "plan.json";
export const RUNS_FILE = "runs.jsonl";
export const TABLE_FILES = ["tables.md", "tables.csv", "tables.txt", "summary.json"];
export const CSV_DIR = "csv";
/** Written by `--report` from the tables; stale as soon as the tables are rewritten. */
export const REPORT_FILES = ["report.html", "report.json"];

interface PlanFile extends StoreState {
  name: string;
  hash: string;
  runs_hash: string;
  source: string | null;
  seeds: number[];
  configs: { label: string; dir: string }[];
}

const LAYOUT: StoreLayout<RunRecord> = {
  stateFile: PLAN_FILE,
  logFile: RUNS_FILE,
  format: "blis-sweep/1",
  isRecord: isRunRecord,
  error: (m) => new PlanError(m),
  results: "results",
  origin: "plan",
};

export class OutDir extends ResumableStore<RunRecord> {
  private constructor(dir: string) {
    super(dir, LAYOUT);
  }

  /**
   * Opens (or creates) the directory for `plan`. A directory holding runs of a different plan is
   * refused unless `restart`, which removes the previous results first. Returns notes for stderr.
   */
  static open(
    dir: string,
    plan: SweepPlan,
    hashes: { full: string; runs: string },
    restart: boolean,
  ): { out: OutDir; notes: string[] } {
    const notes = prepareStoreDir<RunRecord, PlanFile>(dir, LAYOUT, {
      restart,
      clear: (old) => clearSweepDir(dir, old, plan),
      resume: (old) => {
        if (old.runs_hash !== hashes.runs) {
          throw new PlanError(
            `${path.join(dir, PLAN_FILE)}: the plan changed since the runs in this directory (plan hash ${old.hash.slice(0, 12)} → ${hashes.full.slice(0, 12)}); rerun with --restart to discard them, or use another --out`,
          );
        }
        return old.hash !== hashes.full
          ? [`the plan's presentation changed (metrics, checks, ratios, names or timeout); reusing the finished runs`]
          : [];
      },
      state: () => ({
        format: LAYOUT.format,
        name: plan.name,
        hash: hashes.full,
        runs_hash: hashes.runs,
        source: plan.source,
        seeds: plan.seeds,
        configs: plan.configs.map((c) => ({ label: c.label, dir: c.dir })),
      }),
    });
    return { out: new OutDir(dir), notes };
  }

  /** Reads runs.jsonl (the last record per key wins; see JsonlLog for torn and unreadable lines). */
  loadRecords(): RunRecord[] {
    return this.loadLog();
  }

  /** Appends one record as a JSON line and fsyncs it. Returns the stored line's parsed form. */
  append(rec: RunRecord): RunRecord {
    return JSON.parse(this.appendLog(rec)) as RunRecord;
  }

  /**
   * `<config dir>/<seed>.txt` (`.run2.txt` for the determinism repetition), plus `.stderr.txt`.
   * `onlyIfMissing` (a resumed sweep) keeps the files already written in full: a process killed
   * while writing one leaves it shorter than its record says, and it is written again.
   */
  writeRunFiles(config: SweepConfig, rec: RunRecord, onlyIfMissing = false): void {
    const d = path.join(this.dir, config.dir);
    makeDirs(d);
    const base = path.join(d, rec.rep === 0 ? `${rec.seed}` : `${rec.seed}.run${rec.rep + 1}`);
    const put = (file: string, data: string): void => {
      if (onlyIfMissing && holdsInFull(file, data)) return;
      fs.writeFileSync(file, data);
    };
    put(`${base}.txt`, rec.stdout);
    const errText = [...(rec.error !== "" ? [rec.error] : []), ...rec.stderr].join("\n");
    if (errText !== "") put(`${base}.stderr.txt`, errText + "\n");
    else if (!onlyIfMissing) fs.rmSync(`${base}.stderr.txt`, { force: true });
  }
}

/**
 * Whether `file` holds all of `data`. The file is written from the start after truncating it, so a
 * write cut short leaves fewer bytes: its size tells a finished write from an interrupted one.
 */
function holdsInFull(file: string, data: string): boolean {
  try {
    return fs.statSync(file).size === Buffer.byteLength(data);
  } catch {
    return false;
  }
}

/** Removes what earlier sweeps wrote in `dir` (never other files). */
function clearSweepDir(dir: string, old: PlanFile | null, plan: SweepPlan): void {
  const rm = (p: string): void => fs.rmSync(path.join(dir, p), { recursive: true, force: true });
  for (const f of [PLAN_FILE, RUNS_FILE, ...TABLE_FILES, ...REPORT_FILES, CSV_DIR]) rm(f);
  const dirs = new Set<string>([...(old?.configs ?? []).map((c) => c.dir), ...plan.configs.map((c) => c.dir)]);
  for (const d of dirs) if (d !== "" && !d.includes("/") && !d.startsWith(".")) rm(d);
}
