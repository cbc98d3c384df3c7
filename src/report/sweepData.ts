// What a sweep report is built from: the sweep's report object (tables, checks) plus the per-run
// values of the Pareto metrics when they are not among the tabulated ones. Saved as
// DIR/report.json beside DIR/report.html; `blis report DIR` also accepts a directory that only
// has summary.json (and runs.jsonl).

import fs from "node:fs";
import path from "node:path";
import type { SweepResult } from "../experiment/sweep.js";
import type { SweepReport } from "../experiment/report.js";
import type { RunRecord } from "../experiment/store.js";
import { extractMetric } from "../experiment/metrics.js";
import { UserError } from "../util/errors.js";
import { toolName } from "./runData.js";
import { DEFAULT_PARETO } from "./planOptions.js";
import { loadAxes } from "./sweepGroups.js";
import { instanceLoads, type InstanceLoad } from "./sweepInstances.js";
import { DATA_FILE_LIMIT, readInputFile } from "../util/inputFile.js";

export const SWEEP_REPORT_FORMAT = "blis-sweep-report/1";

export interface ExtraValue {
  metric: string;
  config: string;
  seed: number;
  value: number | null;
}

export interface SweepReportData {
  format: typeof SWEEP_REPORT_FORMAT;
  tool: string;
  report: SweepReport;
  /** Metrics of the Pareto scatter: x, then y. */
  pareto: [string, string];
  /** Per-run values of Pareto metrics that the report's tables do not hold. */
  extra: ExtraValue[];
  /**
   * The load axes: a Pareto front compares only configurations that share their values
   * (sweepGroups.ts). Absent in older files: then judged by the axis names.
   */
  paretoWithin?: string[];
  /** Per-instance counts of each run (absent in older files: then the report has no instance chart). */
  instances?: InstanceLoad[];
}

function finite(v: number | null): number | null {
  return v === null || !Number.isFinite(v) ? null : v;
}

/** Values of `metrics` for each (config, seed) from run records (first run of each seed). */
function extraFromRecords(
  report: SweepReport,
  metrics: string[],
  records: readonly RunRecord[],
  weights: (config: string) => string,
): ExtraValue[] {
  const byKey = new Map<string, RunRecord>();
  for (const r of records) if (r.rep === 0) byKey.set(JSON.stringify([r.config, r.seed]), r);
  const out: ExtraValue[] = [];
  for (const metric of metrics) {
    for (const config of report.configs) {
      for (const seed of report.seeds) {
        const r = byKey.get(JSON.stringify([config, seed]));
        const value =
          r !== undefined && r.status === "ok" && r.metrics !== null
            ? finite(extractMetric(metric, r.metrics, weights(config)))
            : null;
        out.push({ metric, config, seed, value });
      }
    }
  }
  return out;
}

/** Report data of a finished sweep. */
export function sweepReportData(res: SweepResult, pareto: [string, string] = DEFAULT_PARETO): SweepReportData {
  const report = res.report;
  const missing = pareto.filter((m) => !report.metrics.includes(m));
  const weightOf = new Map(
    res.plan.configs.map((c) => [c.label, String((c.input as Record<string, unknown>)["fitnessWeights"] ?? "")]),
  );
  return {
    format: SWEEP_REPORT_FORMAT,
    tool: toolName(),
    report,
    pareto: [pareto[0], pareto[1]],
    extra: missing.length > 0 ? extraFromRecords(report, missing, res.records, (c) => weightOf.get(c) ?? "") : [],
    paretoWithin: loadAxes(res.plan.axes),
    instances: instanceLoads(report, res.records),
  };
}

function isSweepReport(v: unknown): v is SweepReport {
  if (v === null || typeof v !== "object") return false;
  const o = v as Record<string, unknown>;
  return (
    Array.isArray(o["per_seed"]) &&
    Array.isArray(o["summary"]) &&
    Array.isArray(o["configs"]) &&
    Array.isArray(o["metrics"]) &&
    Array.isArray(o["seeds"])
  );
}

export function isSweepReportData(v: unknown): v is SweepReportData {
  return (
    v !== null &&
    typeof v === "object" &&
    (v as Record<string, unknown>)["format"] === SWEEP_REPORT_FORMAT &&
    isSweepReport((v as Record<string, unknown>)["report"])
  );
}

/** Reads runs.jsonl records (skipping a torn last line). */
export function readRuns(file: string): RunRecord[] {
  if (!fs.existsSync(file)) return [];
  const out: RunRecord[] = [];
  for (const line of readInputFile(file, DATA_FILE_LIMIT).split("\n")) {
    if (line.trim() === "") continue;
    try {
      const r = JSON.parse(line) as RunRecord;
      if (r !== null && typeof r === "object" && r.v === 1) out.push(r);
    } catch {
      break;
    }
  }
  return out;
}

/**
 * Sweep report data from a parsed summary.json (a SweepReport), completing missing Pareto
 * metrics from the runs.jsonl in `dir` when there is one.
 */
export function sweepDataFromSummary(
  summary: unknown,
  dir: string,
  source: string,
  pareto: [string, string] = DEFAULT_PARETO,
  paretoWithin?: string[],
): SweepReportData {
  if (!isSweepReport(summary))
    throw new UserError(
      `${source}: not a sweep summary (expected the summary.json a sweep writes to its --out directory)`,
    );
  const missing = pareto.filter((m) => !summary.metrics.includes(m));
  const runs = readRuns(path.join(dir, "runs.jsonl"));
  const extra = missing.length > 0 ? extraFromRecords(summary, missing, runs, () => "") : [];
  return {
    format: SWEEP_REPORT_FORMAT,
    tool: toolName(),
    report: summary,
    pareto,
    extra,
    ...(paretoWithin !== undefined ? { paretoWithin } : {}),
    instances: instanceLoads(summary, runs),
  };
}
