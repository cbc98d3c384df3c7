// The output directory of a sweep: plan.json (plan identity), runs.jsonl (one fsynced JSON line
// per finished run), per-run stdout files, and the final tables.

import fs from "node:fs";
import path from "node:path";
import type { SimulationMetrics } from "../metrics/collect.js";
import { writeFileAtomic } from "../util/atomicWrite.js";
import { JsonlLog } from "../util/jsonlLog.js";
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

interface PlanFile {
  format: string;
  name: string;
  hash: string;
  runs_hash: string;
  source: string | null;
  seeds: number[];
  configs: { label: string; dir: string }[];
}

const FORMAT = "blis-sweep/1";

export class OutDir {
  private readonly log: JsonlLog<RunRecord>;

  private constructor(readonly dir: string) {
    this.log = new JsonlLog(path.join(dir, RUNS_FILE), isRunRecord);
  }

  /**
   * Opens (or creates) the directory for `plan`. A directory holding runs of a different plan is
   * refused unless `restart`, which removes the previous results first. Returns notes for stderr.
   */
  static open(dir: string, plan: SweepPlan, hashes: { full: string; runs: string }, restart: boolean): { out: OutDir; notes: string[] } {
    const notes: string[] = [];
    try {
      fs.mkdirSync(dir, { recursive: true });
      fs.accessSync(dir, fs.constants.W_OK);
    } catch (e) {
      throw new PlanError(`${dir}: cannot use as the output directory (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
    }
    const out = new OutDir(dir);
    const planPath = path.join(dir, PLAN_FILE);
    let old: PlanFile | null = null;
    if (fs.existsSync(planPath)) {
      try {
        old = JSON.parse(fs.readFileSync(planPath, "utf8")) as PlanFile;
      } catch {
        old = null;
      }
    }
    const hasRuns = fs.existsSync(path.join(dir, RUNS_FILE));
    if (restart) {
      if (old !== null || hasRuns) notes.push(`--restart: removed the previous results in ${dir}`);
      out.clear(old, plan);
    } else if (old !== null && old.format === FORMAT) {
      if (old.runs_hash !== hashes.runs) {
        throw new PlanError(
          `${path.join(dir, PLAN_FILE)}: the plan changed since the runs in this directory (plan hash ${old.hash.slice(0, 12)} → ${hashes.full.slice(0, 12)}); rerun with --restart to discard them, or use another --out`,
        );
      }
      if (old.hash !== hashes.full) notes.push(`the plan's presentation changed (metrics, checks, ratios, names or timeout); reusing the finished runs`);
    } else if (old !== null || hasRuns) {
      throw new PlanError(`${dir}: holds results that do not come from this plan (no valid ${PLAN_FILE}); rerun with --restart to discard them, or use another --out`);
    }
    const pf: PlanFile = {
      format: FORMAT,
      name: plan.name,
      hash: hashes.full,
      runs_hash: hashes.runs,
      source: plan.source,
      seeds: plan.seeds,
      configs: plan.configs.map((c) => ({ label: c.label, dir: c.dir })),
    };
    writeFileAtomic(planPath, JSON.stringify(pf, null, 2) + "\n");
    return { out, notes };
  }

  /** Removes what earlier sweeps wrote here (never other files). */
  private clear(old: PlanFile | null, plan: SweepPlan): void {
    const rm = (p: string): void => fs.rmSync(path.join(this.dir, p), { recursive: true, force: true });
    for (const f of [PLAN_FILE, RUNS_FILE, ...TABLE_FILES, ...REPORT_FILES, CSV_DIR]) rm(f);
    const dirs = new Set<string>([...(old?.configs ?? []).map((c) => c.dir), ...plan.configs.map((c) => c.dir)]);
    for (const d of dirs) if (d !== "" && !d.includes("/") && !d.startsWith(".")) rm(d);
  }

  /** Reads runs.jsonl (the last record per key wins; see JsonlLog for torn and unreadable lines). */
  loadRecords(): RunRecord[] {
    return this.log.load();
  }

  /** Appends one record as a JSON line and fsyncs it. Returns the stored line's parsed form. */
  append(rec: RunRecord): RunRecord {
    return JSON.parse(this.log.append(rec)) as RunRecord;
  }

  /** `<config dir>/<seed>.txt` (`.run2.txt` for the determinism repetition), plus `.stderr.txt`. */
  writeRunFiles(config: SweepConfig, rec: RunRecord, onlyIfMissing = false): void {
    const d = path.join(this.dir, config.dir);
    fs.mkdirSync(d, { recursive: true });
    const base = path.join(d, rec.rep === 0 ? `${rec.seed}` : `${rec.seed}.run${rec.rep + 1}`);
    const put = (file: string, data: string): void => {
      if (onlyIfMissing && fs.existsSync(file)) return;
      fs.writeFileSync(file, data);
    };
    put(`${base}.txt`, rec.stdout);
    const errText = [...(rec.error !== "" ? [rec.error] : []), ...rec.stderr].join("\n");
    if (errText !== "") put(`${base}.stderr.txt`, errText + "\n");
    else if (!onlyIfMissing) fs.rmSync(`${base}.stderr.txt`, { force: true });
  }

  writeFile(rel: string, data: string): void {
    const full = path.join(this.dir, rel);
    fs.mkdirSync(path.dirname(full), { recursive: true });
    writeFileAtomic(full, data);
  }

  close(): void {
    this.log.close();
  }
}
