// What a run report is built from, saved as JSON next to the HTML (so `blis report` can rebuild
// the page without rerunning): resolved options, the metrics, per-request latencies, pooled
// per-token ITL and the time series. Times are in ticks (µs) throughout; -1 = no value.

import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { SimulationResult } from "../sim/simulate.js";
import type { SimulationMetrics } from "../metrics/collect.js";
import { SERIES_FIELDS, type TimeSeries } from "../metrics/timeSeries.js";
import { UserError } from "../util/errors.js";
import { autoscaleSummary, type AutoscaleSummary } from "../autoscale/summary.js";
import { autoscalerOf } from "../features/autoscale/access.js";
import { readInputFile, SPEC_FILE_LIMIT } from "../util/inputFile.js";

export const RUN_REPORT_FORMAT = "blis-run-report/1";

export interface RunRequests {
  /** SLO class names; `slo` holds indices into this list ("default" for unlabelled requests). */
  sloClasses: string[];
  slo: number[];
  /** Instance index (-1 = never routed). */
  instance: number[];
  /** 1 = completed. */
  completed: number[];
  arrivalUs: number[];
  ttftUs: number[];
  /** Mean inter-token latency of the request (completed requests; -1 otherwise). */
  itlUs: number[];
  e2eUs: number[];
}

export interface RunReportData {
  format: typeof RUN_REPORT_FORMAT;
  tool: string;
  /**
   * Resolved run options (JSON-safe: an unbounded horizon is the string "unbounded", other non-finite numbers their
   * text).
   */
  options: Record<string, unknown>;
  /** Text of the workload-spec file, when one was used and could be read. */
  workloadSpecText: string | null;
  metrics: SimulationMetrics;
  requests: RunRequests;
  /** Pooled per-token inter-token latencies per instance: [value µs, token count] ascending. */
  itlPerToken: [number, number][][];
  timeSeries: TimeSeries | null;
  /**
   * Autoscaled runs only (node pools, lifecycle or autoscaler keys): the `=== Autoscaler ===` figures and the scaling
   * events.
   */
  autoscaler?: AutoscaleSummary;
}

let toolText: string | null = null;

/** "blis-ts <version>" from the package this module belongs to. */
export function toolName(): string {
  if (toolText !== null) return toolText;
  toolText = "blis";
  try {
    let dir = path.dirname(fileURLToPath(import.meta.url));
    for (let k = 0; k < 6; k++) {
      const p = path.join(dir, "package.json");
      if (fs.existsSync(p)) {
        const pkg = JSON.parse(readInputFile(p, SPEC_FILE_LIMIT)) as { name?: string; version?: string };
        if (pkg.name !== undefined) {
          toolText = `${pkg.name} ${pkg.version ?? ""}`.trim();
          break;
        }
      }
      dir = path.dirname(dir);
    }
  } catch {
    // keep the plain name
  }
  return toolText;
}

/** Options as JSON-safe values (bigint seeds as numbers or strings, an unbounded horizon as "unbounded"). */
export function jsonSafeOptions(o: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) {
    if (v === undefined) continue;
    if (typeof v === "bigint")
      out[k] = v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v.toString();
    else if (typeof v === "number" && !Number.isFinite(v))
      out[k] = Number.isNaN(v) ? "NaN" : k === "horizon" && v > 0 ? "unbounded" : String(v);
    else out[k] = v;
  }
  return out;
}

function readSpecText(file: string): string | null {
  if (file === "") return null;
  try {
    return readInputFile(file, 256 * 1024);
  } catch {
    return null;
  }
}

/** Extracts the report data of a finished run. */
export function runReportData(res: SimulationResult): RunReportData {
  const run = res.run;
  const autoscaler = autoscalerOf(run);
  const led = run.ledger;
  const classes: string[] = [];
  const classIndex = new Map<number, number>();
  const req: RunRequests = {
    sloClasses: classes,
    slo: [],
    instance: [],
    completed: [],
    arrivalUs: [],
    ttftUs: [],
    itlUs: [],
    e2eUs: [],
  };
  for (let i = 0; i < led.size; i++) {
    if (!led.isRegistered(i)) continue;
    const raw = led.slo[i]!;
    let c = classIndex.get(raw);
    if (c === undefined) {
      const name = led.sloNames[raw]! || "default";
      c = classes.indexOf(name);
      if (c < 0) {
        c = classes.length;
        classes.push(name);
      }
      classIndex.set(raw, c);
    }
    const done = led.isCompleted(i);
    req.slo.push(c);
    req.instance.push(led.instance[i]!);
    req.completed.push(done ? 1 : 0);
    req.arrivalUs.push(led.arrival[i]!);
    req.ttftUs.push(led.ttft[i]! >= 0 ? led.ttft[i]! : -1);
    req.itlUs.push(done ? led.itl[i]! : -1);
    req.e2eUs.push(done ? led.e2e[i]! : -1);
  }
  const itlPerToken = run.instances.map((inst) => {
    const m = new Map<number, number>();
    inst.pooledItl(m);
    return [...m.entries()].sort((a, b) => a[0] - b[0]);
  });
  return {
    format: RUN_REPORT_FORMAT,
    tool: toolName(),
    options: jsonSafeOptions(res.options as unknown as Record<string, unknown>),
    workloadSpecText: res.options.workloadSpecObject !== undefined ? null : readSpecText(res.options.workloadSpec),
    metrics: res.metrics,
    requests: req,
    itlPerToken,
    timeSeries: run.timeSeries,
    ...(autoscaler !== null ? { autoscaler: autoscaleSummary(autoscaler, res.metrics.fitnessInputs.simEnded) } : {}),
  };
}

/** Validates parsed JSON as run report data (enough for the page to be built); UserError if not. */
export function checkRunReportData(v: unknown, source: string): RunReportData {
  const bad = (what: string): never => {
    throw new UserError(`${source}: not a run report data file (${what})`);
  };
  if (v === null || typeof v !== "object") bad("expected a JSON object");
  const o = v as Record<string, unknown>;
  if (o["format"] !== RUN_REPORT_FORMAT)
    bad(`format is ${JSON.stringify(o["format"])}, expected "${RUN_REPORT_FORMAT}"`);
  checkMetrics(o["metrics"], bad);
  if (o["options"] === null || typeof o["options"] !== "object") bad("missing options");
  checkRequests(o["requests"], bad);
  if (!Array.isArray(o["itlPerToken"])) bad("missing itlPerToken");
  const ts = o["timeSeries"] as Record<string, unknown> | null | undefined;
  if (ts !== null && ts !== undefined) checkTimeSeries(ts, bad);
  const a = o["autoscaler"] as Record<string, unknown> | undefined;
  if (a !== undefined && (a === null || typeof a !== "object" || !Array.isArray(a["events"])))
    bad("malformed autoscaler");
  return {
    ...(o as unknown as RunReportData),
    timeSeries: (ts ?? null) as TimeSeries | null,
    workloadSpecText: (o["workloadSpecText"] as string | null) ?? null,
  };
}

function checkMetrics(v: unknown, bad: (what: string) => never): void {
  const m = v as Record<string, unknown> | undefined;
  if (
    m === undefined ||
    m === null ||
    typeof m !== "object" ||
    typeof m["cluster"] !== "object" ||
    !Array.isArray(m["instances"])
  )
    bad("missing metrics");
}

/** The per-request columns: all lists, all as long as requests.slo. */
function checkRequests(v: unknown, bad: (what: string) => never): void {
  const r = v as Record<string, unknown> | undefined;
  if (r === undefined || r === null || typeof r !== "object") bad("missing requests");
  const cols = ["slo", "instance", "completed", "arrivalUs", "ttftUs", "itlUs", "e2eUs"];
  const n = Array.isArray(r!["slo"]) ? (r!["slo"] as unknown[]).length : -1;
  for (const c of ["sloClasses", ...cols]) if (!Array.isArray(r![c])) bad(`requests.${c} is not a list`);
  for (const c of cols)
    if ((r![c] as unknown[]).length !== n)
      bad(`requests.${c} has ${(r![c] as unknown[]).length} values, expected ${n}`);
}

/** Every series of every instance, the cluster, the fleet and the gateway has one value per sample time. */
function checkTimeSeries(ts: Record<string, unknown>, bad: (what: string) => never): void {
  if (!Array.isArray(ts["timesUs"]) || !Array.isArray(ts["instances"]) || typeof ts["cluster"] !== "object")
    bad("malformed timeSeries");
  const len = (ts["timesUs"] as unknown[]).length;
  for (const blk of [...(ts["instances"] as Record<string, unknown>[]), ts["cluster"] as Record<string, unknown>]) {
    for (const f of SERIES_FIELDS) {
      if (!Array.isArray(blk?.[f]) || (blk[f] as unknown[]).length !== len)
        bad(`timeSeries field ${f} does not match timesUs`);
    }
  }
  checkFleet(ts["fleet"], len, bad);
  checkGatewaySeries(ts["gateway"], len, bad);
}

function checkGatewaySeries(v: unknown, len: number, bad: (what: string) => never): void {
  if (v === undefined) return;
  const g = v as Record<string, unknown> | null;
  if (g === null || typeof g !== "object" || !Array.isArray(g["priorities"]) || !Array.isArray(g["depth"]))
    bad("malformed timeSeries.gateway");
  const depth = g!["depth"] as unknown[];
  if (
    depth.length !== (g!["priorities"] as unknown[]).length ||
    depth.some((c) => !Array.isArray(c) || c.length !== len)
  )
    bad("timeSeries.gateway does not match timesUs");
}

function checkFleet(v: unknown, len: number, bad: (what: string) => never): void {
  if (v === undefined) return;
  const f = v as Record<string, unknown> | null;
  if (f === null || typeof f !== "object" || !Array.isArray(f["states"]) || !Array.isArray(f["byState"]))
    bad("malformed timeSeries.fleet");
  const cols = [...(f!["byState"] as unknown[]), f!["nodesReady"], f!["nodesProvisioning"]];
  if (cols.some((c) => !Array.isArray(c) || c.length !== len)) bad("timeSeries.fleet does not match timesUs");
}
