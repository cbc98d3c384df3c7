// The prefill/decode disaggregation section of a run report (docs/prefill-decode.md): the split,
// per-pool panels built from the instance blocks, and the KV transfer times.

import type { RunReportData } from "./runData.js";
import type { MetricsBlock } from "../metrics/metricsBlock.js";
import { sortedOf } from "./stats.js";
import { ChartSet, cards, table, type Cell } from "./html.js";
import { cdfChart, histChart, PCT_COLUMNS, PCT_RIGHT, percentileRows, type Group } from "./runLatency.js";

interface Pool {
  name: string;
  blocks: MetricsBlock[];
}

/** Instance blocks grouped by role, from the pool sizes of the run's options. */
function pools(d: RunReportData): Pool[] {
  const o = d.options;
  const n = (k: string): number => (typeof o[k] === "number" ? (o[k] as number) : 0);
  const sizes: [string, number][] = [
    ["prefill", n("prefillInstances")],
    ["decode", n("decodeInstances")],
    ["prefill-decode (shared)", n("prefillDecodeInstances")],
  ];
  const out: Pool[] = [];
  let k = 0;
  for (const [name, size] of sizes) {
    if (size > 0) out.push({ name, blocks: d.metrics.instances.slice(k, k + size) });
    k += size;
  }
  if (k < d.metrics.instances.length) out.push({ name: "unassigned", blocks: d.metrics.instances.slice(k) });
  return out;
}

const sum = (bs: MetricsBlock[], f: (b: MetricsBlock) => number): number => bs.reduce((s, b) => s + f(b), 0);

/** Completion-weighted mean of a per-instance latency over the instances with completions. */
function weighted(bs: MetricsBlock[], f: (b: MetricsBlock) => number): number | null {
  const n = sum(bs, (b) => b.completed_requests);
  return n > 0 ? sum(bs, (b) => f(b) * b.completed_requests) / n : null;
}

function poolRows(ps: Pool[]): Cell[][] {
  return ps.map((p) => [
    p.name,
    p.blocks.length,
    sum(p.blocks, (b) => b.completed_requests),
    sum(p.blocks, (b) => b.still_queued + b.still_running),
    sum(p.blocks, (b) => b.total_input_tokens),
    sum(p.blocks, (b) => b.total_output_tokens),
    weighted(p.blocks, (b) => b.ttft_mean_ms),
    weighted(p.blocks, (b) => b.itl_mean_ms),
    p.blocks.length > 0 ? Math.max(...p.blocks.map((b) => b.itl_p99_ms)) : null,
    sum(p.blocks, (b) => b.preemption_count),
  ]);
}

/** The PD section, or null when no request was split. */
export function pdSection(charts: ChartSet, d: RunReportData): string | null {
  const pd = d.metrics.pd;
  if (pd === undefined || pd === null) return null;
  const t = pd.transfer;
  let html = cards([
    { label: "split requests", value: String(pd.disaggregated) },
    { label: "dropped at decode KV", value: String(pd.droppedAtDecode) },
    { label: "transfer mean / p99", value: `${(t.mean / 1000).toFixed(2)} / ${(t.p99 / 1000).toFixed(2)}`, unit: "ms" },
    {
      label: "prefill / decode throughput",
      value: `${pd.prefillThroughput.toFixed(2)} / ${pd.decodeThroughput.toFixed(2)}`,
      unit: "sub-req/s",
    },
    { label: "load imbalance", value: pd.loadImbalance === null ? "inf" : pd.loadImbalance.toFixed(3) },
  ]);
  html +=
    `<p class="lead">Per pool, summed over its instances. Instances count sub-requests: a prefill instance its prefills ` +
    `(TTFT with the output-token time, no output), a decode instance its decodes (no TTFT, decode ITLs) and the requests it served whole.</p>`;
  html += table(
    [
      "pool",
      "instances",
      "completed",
      "queued or running",
      "input tokens",
      "output tokens",
      "TTFT mean (ms)",
      "ITL mean (ms)",
      "ITL p99 max (ms)",
      "preemptions",
    ],
    poolRows(pools(d)),
  );
  const values = pd.transfers ?? [];
  if (values.length === 0) return html + `<p class="note">No KV transfer completed.</p>`;
  const all: Group = { name: "transfers", color: "#4e79a7", ms: sortedOf(values.map((v) => v / 1000)) };
  html +=
    `<h3>KV transfer durations</h3><div class="grid">${charts.figure(cdfChart("pd-transfer-cdf", "Transfer — CDF", "transfers", "ms", all, [], ""))}` +
    `${charts.figure(histChart("pd-transfer-hist", "Transfer — histogram", "transfers", "ms", all, []))}</div>`;
  html += table(PCT_COLUMNS("ms"), percentileRows(all, []), { right: PCT_RIGHT });
  return html;
}
