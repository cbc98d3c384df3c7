// The HTML report of one run (`blis run --report FILE`): summary, configuration, latency
// distributions, instances, time series, KV cache and the metric JSON.

import path from "node:path";
import type { SimulationResult } from "../sim/simulate.js";
import { runFlags } from "../config/runFlags.js";
import { runOptionsSchema } from "../config/runOptions.js";
import { goJson } from "../util/goFormat.js";
import { printedClusterBlock } from "../metrics/render.js";
import { writeFileAtomic } from "../util/atomicWrite.js";
import { makeDirs } from "../util/makeDirs.js";
import { UserError } from "../util/errors.js";
import { jsonSafeOptions, runReportData, type RunReportData } from "./runData.js";
import { ChartSet, cards, esc, renderPage, section, table, type Cell } from "./html.js";
import { latencySection } from "./runLatency.js";
import { instancesSection, kvSection, timeSeriesSection } from "./runSeries.js";
import { pdSection } from "./runPd.js";
import { fleetSection } from "./runFleet.js";
import { gatewaySection, hasGatewaySection } from "./runGateway.js";

const GROUP_TITLES: Record<string, string> = {
  model: "Model and latency",
  workload: "Workload",
  engine: "Engine",
  kv: "KV cache",
  cluster: "Cluster",
  policy: "Policies",
  output: "Output",
  extension: "Extensions",
};

function valueText(v: unknown): string {
  if (v === undefined) return "";
  if (Array.isArray(v)) return v.map((x) => String(x)).join(",");
  if (typeof v === "string") return v;
  if (v !== null && typeof v === "object") return JSON.stringify(v);
  return String(v);
}

let defaultsCache: Record<string, unknown> | null = null;
function defaults(): Record<string, unknown> {
  defaultsCache ??= jsonSafeOptions(runOptionsSchema().parse({}) as Record<string, unknown>);
  return defaultsCache;
}

function configSection(d: RunReportData): string {
  const o = d.options;
  const def = defaults();
  const flags = runFlags();
  const known = new Set<string>(flags.map((f) => f.key));
  const changedRows: Cell[][] = [];
  const allRows: Cell[][] = [];
  const allClass: (string | null)[] = [];
  const groups = [...new Set(flags.map((f) => f.group))];
  for (const g of groups) {
    allRows.push([{ text: GROUP_TITLES[g] ?? g }, "", ""]);
    allClass.push("group");
    for (const f of flags.filter((x) => x.group === g)) {
      if (!(f.key in o)) continue;
      const v = valueText(o[f.key]);
      const dv = valueText(def[f.key]);
      const changed = v !== dv;
      const valueCell: Cell = v === "" ? { html: '<span class="muted">(empty)</span>' } : { text: v, cls: "mono wrap" };
      allRows.push([f.flag, valueCell, dv === "" ? "" : { text: dv, cls: "mono" }]);
      allClass.push(changed ? "changed" : null);
      if (changed)
        changedRows.push([
          f.flag,
          valueCell,
          dv === "" ? { html: '<span class="muted">(empty)</span>' } : { text: dv, cls: "mono" },
          { text: f.help, cls: "wrap muted" },
        ]);
    }
  }
  const extra = Object.keys(o).filter((k) => !known.has(k as never));
  let html = `<p class="lead">The resolved options of the run (after defaults, presets and the policy bundle were applied). Values that differ from the built-in defaults:</p>`;
  html += table(["flag", "value", "default", "meaning"], changedRows, { wrap: [false, true, false, true] });
  html += `<details><summary>All ${allRows.length - groups.length} options</summary>${table(["flag", "value", "default"], allRows, { rowClass: allClass, wrap: [false, true, false] })}<p class="note">A blue edge marks values that differ from the defaults.</p></details>`;
  for (const k of extra)
    html += `<details><summary>${esc(k)}</summary><pre class="json">${esc(JSON.stringify(o[k], null, 2))}</pre></details>`;
  if (d.workloadSpecText !== null) {
    html += `<details><summary>Workload spec ${esc(String(o["workloadSpec"] ?? ""))}</summary><pre class="json">${esc(d.workloadSpecText)}</pre></details>`;
  }
  return html;
}

/** Completions per second while arrivals still come (null: too short a run; absent: older results). */
function sustainedCard(v: number | null | undefined): { label: string; value: string; unit?: string; title: string } {
  const label = "sustained throughput";
  const title =
    "completions per second from the first arrival plus the warm-up to the last arrival (sustained_throughput)";
  return v === null || v === undefined
    ? { label, value: "n/a", title }
    : { label, value: v.toFixed(2), unit: "req/s", title };
}

function summaryCards(d: RunReportData): string {
  const m = d.metrics;
  const c = m.cluster;
  const ms = (v: number): string => (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2));
  // A latency no request has is "n/a", not a 0 that reads like a measurement.
  const pair = (has: boolean, a: number, b: number): { value: string; unit?: string } =>
    has ? { value: `${ms(a)} / ${ms(b)}`, unit: "ms" } : { value: "n/a" };
  const hasItl = d.itlPerToken.some((list) => list.length > 0);
  return cards([
    { label: "completed / injected", value: `${c.completed_requests} / ${c.injected_requests}` },
    sustainedCard(m.sustainedResponsesPerSec),
    { label: "throughput (whole run)", value: c.responses_per_sec.toFixed(2), unit: "req/s" },
    { label: "output tokens", value: c.tokens_per_sec.toFixed(0), unit: "tok/s" },
    {
      label: "TTFT p50 / p99",
      ...pair(
        d.requests.ttftUs.some((v) => v >= 0),
        quick(d.requests.ttftUs, 0.5),
        c.ttft_p99_ms,
      ),
    },
    { label: "ITL mean / p99", ...pair(hasItl, c.itl_mean_ms, c.itl_p99_ms) },
    {
      label: "E2E p50 / p99",
      ...pair(
        d.requests.e2eUs.some((v) => v >= 0),
        quick(d.requests.e2eUs, 0.5),
        c.e2e_p99_ms,
      ),
    },
    { label: "cache hit rate", value: (m.kv.cacheHitRate * 100).toFixed(1), unit: "%" },
    { label: "preemptions", value: String(c.preemption_count) },
    { label: "rejected / dropped", value: `${m.anomalies.rejected} / ${c.dropped_unservable}` },
    { label: "simulated duration", value: c.vllm_estimated_duration_s.toFixed(2), unit: "s" },
  ]);
}

/** Median (ms) of a per-request tick column, ignoring -1. */
function quick(col: number[], p: number): number {
  const v = Float64Array.from(col.filter((x) => x >= 0)).sort();
  if (v.length === 0) return 0;
  const r = p * (v.length - 1);
  const lo = Math.floor(r);
  const hi = Math.ceil(r);
  return (v[lo]! + (v[hi]! - v[lo]!) * (r - lo)) / 1000;
}

function metricsSection(d: RunReportData): string {
  const m = d.metrics;
  const run = {
    generated: m.generated,
    routed: m.routed,
    rejected: m.anomalies.rejected,
    per_instance_routed: m.perInstanceRouted,
    kv: m.kv,
    anomalies: m.anomalies,
    tenant_fairness_jain: m.tenantFairness,
    per_slo_ticks: m.perSlo,
    ...(m.trace !== null ? { trace: m.trace } : {}),
  };
  return (
    `<p class="lead">The cluster block exactly as <code>blis run</code> prints it (and as <code>--results-path</code> writes it, without the per-request records).</p>` +
    `<pre class="json">${esc(goJson(printedClusterBlock(m)))}</pre>` +
    `<details><summary>Per-instance blocks (${m.instances.length})</summary>${m.instances.map((b) => `<pre class="json">${esc(goJson(b))}</pre>`).join("")}</details>` +
    `<details><summary>Run-level values (KV, anomalies, per-SLO distributions in ticks)</summary><pre class="json">${esc(JSON.stringify(run, null, 2))}</pre></details>`
  );
}

/** The report page for run report data. */
export function renderRunReport(d: RunReportData): string {
  const charts = new ChartSet();
  const o = d.options;
  const c = d.metrics.cluster;
  const pd = pdSection(charts, d);
  const fleet = fleetSection(charts, d);
  const body = [
    section("summary", "Summary", "", summaryCards(d)),
    section("config", "Configuration", "", configSection(d)),
    section("latency", "Latency distributions", "", latencySection(charts, d)),
    section(
      "instances",
      "Instances",
      `Per-instance request counts and load (${d.metrics.numInstances} instance${d.metrics.numInstances === 1 ? "" : "s"}, routing ${esc(String(o["routingPolicy"]))}).`,
      instancesSection(charts, d),
    ),
    ...(pd !== null
      ? [section("pd", "Prefill/decode disaggregation", "Pools, sub-requests and KV transfers.", pd)]
      : []),
    ...(fleet !== "" ? [section("fleet", "Fleet", "", fleet)] : []),
    ...(hasGatewaySection(d) ? [section("gateway", "Gateway and goodput", "", gatewaySection(charts, d))] : []),
    section("timeseries", "Time series", "", timeSeriesSection(charts, d)),
    section("kv", "KV cache", "", kvSection(charts, d)),
    section("metrics", "Metric JSON", "", metricsSection(d)),
  ].join("\n");
  const subtitle =
    `${esc(String(o["model"]))} · ${d.metrics.numInstances} instance${d.metrics.numInstances === 1 ? "" : "s"} · ` +
    `${c.completed_requests} of ${c.injected_requests} requests completed in ${c.vllm_estimated_duration_s.toFixed(2)} s simulated · seed ${esc(String(o["seed"]))}` +
    (o["workloadSpec"]
      ? ` · workload ${esc(path.basename(String(o["workloadSpec"])))}`
      : ` · workload ${esc(String(o["workload"]))}`);
  return renderPage({
    title: "BLIS run report",
    subtitle,
    nav: [
      { id: "summary", label: "Summary" },
      { id: "config", label: "Configuration" },
      { id: "latency", label: "Latency" },
      { id: "lat-ttft", label: "TTFT" },
      { id: "lat-itl", label: "ITL" },
      { id: "lat-e2e", label: "E2E" },
      { id: "instances", label: "Instances" },
      ...(pd !== null ? [{ id: "pd", label: "PD" }] : []),
      ...(fleet !== "" ? [{ id: "fleet", label: "Fleet" }] : []),
      ...(hasGatewaySection(d) ? [{ id: "gateway", label: "Gateway" }] : []),
      { id: "timeseries", label: "Time series" },
      { id: "kv", label: "KV cache" },
      { id: "metrics", label: "Metric JSON" },
    ],
    body,
    charts,
    footer: `Generated by ${esc(d.tool)} from a simulation; times are simulated, not measured.`,
  });
}

/** Where the report's data is saved: the HTML path with a .json extension (x.html → x.json, x → x.json). */
export function reportDataPath(htmlPath: string): string {
  const ext = path.extname(htmlPath);
  const base =
    ext.toLowerCase() === ".html" || ext.toLowerCase() === ".htm" ? htmlPath.slice(0, -ext.length) : htmlPath;
  return `${base}.json`;
}

/** Writes the run report (HTML) and its data (JSON beside it). Returns both paths. */
export function writeRunReport(htmlPath: string, res: SimulationResult): { html: string; data: string } {
  const data = runReportData(res);
  const dataPath = reportDataPath(htmlPath);
  const html = renderRunReport(data);
  try {
    makeDirs(path.dirname(path.resolve(htmlPath)));
    writeFileAtomic(dataPath, JSON.stringify(data) + "\n");
    writeFileAtomic(htmlPath, html);
  } catch (e) {
    throw new UserError(`writing report ${htmlPath}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  return { html: htmlPath, data: dataPath };
}
