// `blis report RESULTS`: rebuilds a report from saved results without rerunning anything. RESULTS
// is a run report's JSON (written beside the HTML by `blis run --report`), a sweep's --out
// directory, its summary.json or report.json, or a report HTML file whose JSON sits beside it.

import fs from "node:fs";
import { loadPlanWithReport, splitReportKey } from "./planOptions.js";
import { loadAxes } from "./sweepGroups.js";
import path from "node:path";
import { writeFileAtomic } from "../util/atomicWrite.js";
import { makeDirs } from "../util/makeDirs.js";
import { UserError } from "../util/errors.js";
import { RUN_REPORT_FORMAT, checkRunReportData } from "./runData.js";
import { renderRunReport, reportDataPath } from "./runReport.js";
import { isSweepReportData, readRuns, sweepDataFromSummary, type SweepReportData } from "./sweepData.js";
import { instanceLoads } from "./sweepInstances.js";
import { renderSweepReport } from "./sweepReport.js";
import { DATA_FILE_LIMIT, InputFileError, readFailure, readInputFile, SPEC_FILE_LIMIT } from "../util/inputFile.js";

function readJson(file: string): unknown {
  let text: string;
  try {
    text = readInputFile(file, DATA_FILE_LIMIT);
  } catch (e) {
    const code = (e as InputFileError).code;
    throw new UserError(
      code !== undefined ? `${file}: cannot read (${code})` : `${file}: cannot read: ${readFailure(e)}`,
    );
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw new UserError(`${file}: not valid JSON (${(e as Error).message.split("\n")[0]})`);
  }
}

/** A valid report.json of a sweep directory, if there is one. */
function sweepDataIn(dir: string): SweepReportData | null {
  const p = path.join(dir, "report.json");
  if (!fs.existsSync(p)) return null;
  const v = readJson(p);
  return isSweepReportData(v) ? v : null;
}

function sweepFromDir(dir: string): SweepReportData {
  const saved = sweepDataIn(dir);
  // A report.json written before the per-instance counts were saved: take them from the runs.
  if (saved !== null && saved.instances === undefined)
    return { ...saved, instances: instanceLoads(saved.report, readRuns(path.join(dir, "runs.jsonl"))) };
  if (saved !== null) return saved;
  const summary = path.join(dir, "summary.json");
  if (!fs.existsSync(summary))
    throw new UserError(`${dir}: no summary.json or report.json here (is it a sweep's --out directory?)`);
  const plan = planOptions(dir);
  return sweepDataFromSummary(readJson(summary), dir, summary, plan?.pareto, plan?.within);
}

/**
 * The Pareto metrics (its `report:` key) and load axes of the plan this directory's runs came
 * from, if readable.
 */
function planOptions(dir: string): { pareto: [string, string]; within?: string[] } | undefined {
  let source: unknown;
  let pareto: [string, string];
  try {
    source = (readJson(path.join(dir, "plan.json")) as { source?: unknown }).source;
    if (typeof source !== "string" || !fs.existsSync(source)) return undefined;
    pareto = splitReportKey(readInputFile(source, SPEC_FILE_LIMIT), source).report.pareto;
  } catch {
    return undefined; // the plan moved or changed shape: fall back to the default metrics
  }
  try {
    return { pareto, within: loadAxes(loadPlanWithReport(source).plan.axes) };
  } catch {
    return { pareto }; // the plan no longer parses: load axes judged by name
  }
}

export interface Rebuilt {
  kind: "run" | "sweep";
  html: string;
}

/** The page for a sweep's output folder and where it goes. */
function renderFromSweepDir(
  dir: string,
  out: string | undefined,
): { kind: "run" | "sweep"; html: string; target: string } {
  return { kind: "sweep", html: renderSweepReport(sweepFromDir(dir)), target: out ?? path.join(dir, "report.html") };
}

/** The data file of `results`: itself, or for a report page the JSON written beside it. */
function dataFileOf(results: string): string {
  if (!/\.html?$/i.test(results)) return results;
  const file = reportDataPath(results);
  if (!fs.existsSync(file))
    throw new UserError(`${results}: the report's data file ${file} is missing (give the JSON that --report wrote)`);
  return file;
}

/** The page for a data file (run report data, sweep report data or a sweep's summary) and where it goes. */
function renderFromDataFile(
  results: string,
  out: string | undefined,
): { kind: "run" | "sweep"; html: string; target: string } {
  const file = dataFileOf(results);
  const v = readJson(file);
  const dir = path.dirname(file);
  const format = v !== null && typeof v === "object" ? (v as Record<string, unknown>)["format"] : undefined;
  let kind: "run" | "sweep";
  let html: string;
  let target: string;
  if (format === RUN_REPORT_FORMAT) {
    kind = "run";
    html = renderRunReport(checkRunReportData(v, file));
    target = out ?? (/\.json$/i.test(file) ? file.replace(/\.json$/i, ".html") : `${file}.html`);
  } else if (isSweepReportData(v)) {
    kind = "sweep";
    html = renderSweepReport(v);
    target = out ?? path.join(dir, "report.html");
  } else if (v !== null && typeof v === "object" && "per_seed" in v) {
    kind = "sweep";
    const saved = sweepDataIn(dir);
    html = renderSweepReport(
      saved !== null && saved.report.name === (v as { name?: unknown }).name
        ? { ...saved, report: sweepDataFromSummary(v, dir, file).report }
        : sweepDataFromSummary(v, dir, file, undefined, planOptions(dir)?.within),
    );
    target = out ?? path.join(dir, "report.html");
  } else {
    throw new UserError(
      `${file}: not a report data file (expected the JSON that blis run --report writes, or a sweep's summary.json / report.json${
        typeof format === "string" ? `; format is "${format}"` : ""
      })`,
    );
  }
  if (path.resolve(target) === path.resolve(file))
    throw new UserError(`${target}: the report would overwrite its own data; give --out`);
  return { kind, html, target };
}

/** Rebuilds the report for `results`, writing it to `out` (default: beside the results). */
export function rebuildReport(results: string, out?: string): Rebuilt {
  let st: fs.Stats;
  try {
    st = fs.statSync(results);
  } catch {
    throw new UserError(`${results}: no such file or directory`);
  }
  const { kind, html, target } = st.isDirectory() ? renderFromSweepDir(results, out) : renderFromDataFile(results, out);
  try {
    makeDirs(path.dirname(path.resolve(target)));
    writeFileAtomic(target, html);
  } catch (e) {
    throw new UserError(`writing report ${target}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  return { kind, html: target };
}
