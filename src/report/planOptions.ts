// The optional `report:` key of a sweep plan (`report: {pareto: [x, y]}`): read here and blanked
// out of the text before the plan parser sees it, so that line and column numbers in the parser's
// messages stay those of the file.

import path from "node:path";
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Node, type Pair } from "yaml";
import { parsePlan, type SweepPlan } from "../experiment/plan.js";
import { PlanError } from "../experiment/errors.js";
import { metricProblem } from "../experiment/metrics.js";
import { InputFileError, readFailure, readInputFile, SPEC_FILE_LIMIT } from "../util/inputFile.js";

export interface SweepReportOptions {
  /** Metrics of the Pareto scatter: x, then y. */
  pareto: [string, string];
}

export const DEFAULT_PARETO: [string, string] = ["ttft_p99", "throughput"];

/** Reads a plan file with its `report` options (defaults when the key is absent). */
export function loadPlanWithReport(file: string): { plan: SweepPlan; report: SweepReportOptions } {
  let text: string;
  try {
    text = readInputFile(file, SPEC_FILE_LIMIT);
  } catch (e) {
    const code = (e as InputFileError).code;
    throw new PlanError(`${file}: cannot read the plan file${code ? ` (${code})` : `: ${readFailure(e)}`}`);
  }
  const { rest, report } = splitReportKey(text, file);
  const plan = parsePlan(rest, { file, baseDir: path.dirname(path.resolve(file)), source: path.resolve(file) });
  return { plan, report };
}

/** Separates the `report` key from plan text (other keys keep their positions). */
export function splitReportKey(text: string, file: string): { rest: string; report: SweepReportOptions } {
  const report: SweepReportOptions = { pareto: [...DEFAULT_PARETO] };
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc, prettyErrors: false, logLevel: "error" });
  // Syntax errors are left to the plan parser, which reports them in its own words.
  if (doc.errors.length > 0 || doc.contents === null || !isMap(doc.contents)) return { rest: text, report };
  const pair = (doc.contents.items as Pair[]).find((p) => isScalar(p.key) && p.key.value === "report");
  if (pair === undefined) return { rest: text, report };
  const fail = (node: Node | null | undefined, msg: string): never => {
    const off =
      (node as { range?: [number, number, number] } | null | undefined)?.range?.[0] ??
      (pair.key as Node).range?.[0] ??
      0;
    const { line, col } = lc.linePos(off);
    throw new PlanError(`${file}:${line}:${col}: report: ${msg}`);
  };
  const value = pair.value as Node | null;
  if (value !== null && !(isScalar(value) && value.value === null)) {
    if (!isMap(value)) fail(value, "expected a mapping, e.g. {pareto: [ttft_p99, throughput]}");
    for (const item of (value as { items: Pair[] }).items) report.pareto = readPareto(item, fail);
  }
  return { rest: blankPair(text, pair, value), report };
}

/**
 * The two metrics of `report: {pareto: [x, y]}`: a key other than pareto, a malformed list or an unknown metric fails.
 */
function readPareto(item: Pair, fail: (node: Node | null | undefined, msg: string) => never): [string, string] {
  const key = isScalar(item.key) ? String(item.key.value) : "";
  if (key !== "pareto") fail(item.key as Node, `unknown key "${key}" (valid: pareto)`);
  const v = item.value as Node | null;
  if (
    v === null ||
    !isSeq(v) ||
    v.items.length !== 2 ||
    !v.items.every((x) => isScalar(x) && typeof (x as { value: unknown }).value === "string")
  ) {
    fail(v ?? (item.key as Node), "pareto: expected two metric names [x, y], e.g. [ttft_p99, throughput]");
  }
  const names = (v as { items: { value: string }[] }).items.map((x) => x.value.trim());
  names.forEach((m, i) => {
    const why = metricProblem(m);
    if (why !== null) fail((v as { items: Node[] }).items[i], `pareto metric "${m}": ${why}`);
  });
  if (names[0] === names[1]) fail(v, "pareto: the two metrics must differ");
  return [names[0]!, names[1]!];
}

/** The text with the pair blanked (keeping newlines) so that the remaining text parses to the same positions. */
function blankPair(text: string, pair: Pair, value: Node | null): string {
  const start = (pair.key as Node).range![0];
  const end = value?.range?.[1] ?? (pair.key as Node).range![1];
  let colon = text.indexOf(":", (pair.key as Node).range![1]);
  if (colon < 0 || colon > end) colon = end;
  const blankEnd = Math.max(end, colon + 1);
  return text.slice(0, start) + text.slice(start, blankEnd).replace(/[^\n]/g, " ") + text.slice(blankEnd);
}
