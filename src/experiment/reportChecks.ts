// The invariant checks of every run (examples/experiments/README.md "Tables"): request conservation, and
// byte-identical output when a run is repeated.

import type { SimulationMetrics } from "../metrics/collect.js";
import { gatewayAccounted } from "../metrics/gatewayOutput.js";
import type { SweepPlan } from "./planTypes.js";
import type { RunRecord } from "./store.js";
import type { CheckResult, ConservationRow, DeterminismRow, SweepReport } from "./reportTypes.js";
import type { RunValues } from "./reportValues.js";

/** The conservation table: one row per (configuration, seed), first repetition. */
export function conservationSection(plan: SweepPlan, values: RunValues): SweepReport["conservation"] {
  const rows: ConservationRow[] = [];
  for (const c of plan.configs) {
    for (const seed of plan.seeds) {
      const r = values.record(c, seed);
      rows.push(conservationRow(c.label, seed, r));
    }
  }
  return { result: overall(rows.map((r) => r.result)), rows };
}

/** The determinism table: each (configuration, seed) compared with its repetition. */
export function determinismSection(plan: SweepPlan, values: RunValues): SweepReport["determinism"] {
  const rows: DeterminismRow[] = [];
  for (const c of plan.configs) {
    for (const seed of plan.seeds)
      rows.push(determinismRow(c.label, seed, values.record(c, seed, 0), values.record(c, seed, 1)));
  }
  return { result: overall(rows.map((r) => r.result)), rows };
}

function overall(results: CheckResult[]): CheckResult {
  if (results.some((r) => r === "FAIL")) return "FAIL";
  return results.some((r) => r === "PASS") ? "PASS" : "N/A";
}

/** Conservation table (examples/experiments/README.md "Tables"). */
export function conservationRow(config: string, seed: number, r: RunRecord | undefined): ConservationRow {
  const row: ConservationRow = {
    config,
    seed,
    status: r?.status ?? "missing",
    generated: null,
    injected: null,
    completed: null,
    still_queued: null,
    still_running: null,
    dropped_unservable: null,
    rejected: null,
    blocks: "N/A",
    instance_sum: "N/A",
    pipeline: "N/A",
    result: "N/A",
    detail: r === undefined ? "not run" : r.status !== "ok" ? "run failed" : "",
  };
  if (r === undefined || r.status !== "ok" || r.metrics === null) return row;
  const m: SimulationMetrics = r.metrics;
  const cl = m.cluster;
  Object.assign(row, {
    generated: m.generated,
    injected: cl.injected_requests,
    completed: cl.completed_requests,
    still_queued: cl.still_queued,
    still_running: cl.still_running,
    dropped_unservable: cl.dropped_unservable,
    rejected: m.anomalies.rejected,
  });
  const problems: string[] = [];
  row.blocks = blocksBalance(m, problems);
  if (m.instances.length > 1) row.instance_sum = instancesSumToCluster(m, problems);
  row.pipeline = pipelineBalance(m, problems);
  row.result = [row.blocks, row.instance_sum, row.pipeline].includes("FAIL") ? "FAIL" : "PASS";
  row.detail = problems.join("; ");
  return row;
}

/** Every instance and the cluster: injected = completed + queued + running + dropped. */
function blocksBalance(m: SimulationMetrics, problems: string[]): CheckResult {
  let result: CheckResult = "PASS";
  for (const b of [...m.instances, m.cluster]) {
    const sum = b.completed_requests + b.still_queued + b.still_running + b.dropped_unservable;
    if (b.injected_requests !== sum) {
      result = "FAIL";
      problems.push(`${b.instance_id}: injected ${b.injected_requests} != completed+queued+running+dropped ${sum}`);
    }
  }
  return result;
}

/** The instances' injected requests add up to the cluster's. */
function instancesSumToCluster(m: SimulationMetrics, problems: string[]): CheckResult {
  const cl = m.cluster;
  let s = 0;
  for (const b of m.instances) s += b.injected_requests;
  // PD: a split request is a prefill on one instance and a decode on another.
  const subs = m.pd?.decodeSubRequests ?? 0;
  const result = s === cl.injected_requests + subs ? "PASS" : "FAIL";
  if (result === "FAIL") {
    problems.push(
      `Σ instance injected ${s} != cluster injected ${cl.injected_requests}${subs > 0 ? ` + ${subs} decode sub-requests` : ""}`,
    );
  }
  return result;
}

/** Every generated request is injected, rejected or in transit; N/A when some arrive after the horizon. */
function pipelineBalance(m: SimulationMetrics, problems: string[]): CheckResult {
  if (!m.allArrived) {
    problems.push("pipeline N/A: some requests arrive after the horizon");
    return "N/A";
  }
  // Requests still in admission or routing latency at the horizon are neither injected nor rejected.
  const s =
    m.cluster.injected_requests +
    m.anomalies.rejected +
    (m.anomalies.routingRejections ?? 0) +
    gatewayAccounted(m.gateway) +
    (m.inTransit ?? 0);
  const result = s === m.generated ? "PASS" : "FAIL";
  if (result === "FAIL") problems.push(`injected+rejected+in transit ${s} != generated ${m.generated}`);
  return result;
}

/** Determinism table (examples/experiments/README.md "Tables"). */
export function determinismRow(
  config: string,
  seed: number,
  a: RunRecord | undefined,
  b: RunRecord | undefined,
): DeterminismRow {
  const row: DeterminismRow = { config, seed, result: "N/A", detail: "" };
  if (a === undefined || b === undefined) return { ...row, detail: "not run" };
  if (a.status === "timeout" || b.status === "timeout") return { ...row, detail: "timed out" };
  if (a.status !== b.status) return { ...row, result: "FAIL", detail: `status ${a.status} vs ${b.status}` };
  if (a.error !== b.error)
    return { ...row, result: "FAIL", detail: `error ${JSON.stringify(a.error)} vs ${JSON.stringify(b.error)}` };
  const diff = firstDifference(a.stdout, b.stdout);
  if (diff !== null) return { ...row, result: "FAIL", detail: diff };
  return { ...row, result: "PASS", detail: a.status === "ok" ? "" : `both ${a.status}` };
}

/** `line N: "a" vs "b"` for the first differing line, or null when identical. */
export function firstDifference(x: string, y: string): string | null {
  if (x === y) return null;
  const a = x.split("\n");
  const b = y.split("\n");
  const cut = (s: string | undefined): string =>
    s === undefined ? "<end of output>" : JSON.stringify(s.length > 80 ? s.slice(0, 77) + "..." : s);
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (a[i] !== b[i]) return `line ${i + 1}: ${cut(a[i])} vs ${cut(b[i])}`;
  }
  return "outputs differ";
}
