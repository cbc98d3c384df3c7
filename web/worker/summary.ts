// A finished simulation → what the page shows: the exact `blis run` stdout, the metric cards'
// values (read from the same metrics block the CLI prints), the run report's sections and charts,
// and latency CDFs for compare mode.

import type { SimulationResult } from "../../src/sim/simulate.js";
import { renderStdout } from "../../src/sim/renderStdout.js";
import { printedClusterBlock } from "../../src/metrics/render.js";
import { formatFixed, goJson } from "../../src/util/goFormat.js";
import { runReportData, type RunReportData } from "../../src/report/runData.js";
import { ChartSet, section } from "../../src/report/html.js";
import { latencySection } from "../../src/report/runLatency.js";
import { instancesSection, kvSection, timeSeriesSection } from "../../src/report/runSeries.js";
import { cdfPoints, sortedOf } from "../../src/report/stats.js";
import type { Cdf, RunSummary } from "../shared/protocol.js";

/** Cluster-block keys shown as cards (output keys of `blis run`). */
export const CARD_KEYS = [
  "ttft_mean_ms",
  "ttft_p90_ms",
  "ttft_p99_ms",
  "itl_mean_ms",
  "itl_p90_ms",
  "itl_p99_ms",
  "e2e_mean_ms",
  "e2e_p90_ms",
  "e2e_p99_ms",
  "responses_per_sec",
  "tokens_per_sec",
  "completed_requests",
  "preemption_count",
  "dropped_unservable",
] as const;
/** The KV block's "Cache Hit Rate" line, as a card. */
export const CACHE_HIT_KEY = "cache_hit_rate";
/** Completions per second while arrivals still come (not a `blis run` key; docs/behavior.md "Sustained throughput"). */
export const SUSTAINED_KEY = "sustained_responses_per_sec";

/** Values of the cards as printed in the cluster block's JSON (Go's number text). */
function printedValues(block: object): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of goJson(block).matchAll(/^\s*"([a-z0-9_]+)": (.*?),?$/gm)) out[m[1]!] = m[2]!;
  return out;
}

function cdfOf(values: readonly number[]): Cdf {
  const kept = values.filter((v) => v >= 0);
  return cdfPoints(sortedOf(kept), 1 / 1000);
}

function sections(d: RunReportData): { html: string; charts: RunSummary["charts"] } {
  const charts = new ChartSet();
  const n = d.metrics.numInstances;
  const html = [
    section("latency", "Latency distributions", "", latencySection(charts, d)),
    section(
      "instances",
      "Instances",
      `Per-instance request counts and load (${n} instance${n === 1 ? "" : "s"}).`,
      instancesSection(charts, d),
    ),
    section("timeseries", "Time series", "", timeSeriesSection(charts, d)),
    section("kv", "KV cache", "", kvSection(charts, d)),
  ].join("\n");
  return { html, charts: charts.specs };
}

export function summarize(
  res: SimulationResult,
  detail: "full" | "metrics",
  wallMs: number,
  log: string[],
): RunSummary {
  const out = renderStdout(res);
  const block = printedClusterBlock(res.metrics);
  const all = printedValues(block);
  const metrics: Record<string, number | null> = {};
  const printed: Record<string, string> = {};
  for (const k of CARD_KEYS) {
    metrics[k] = (block as unknown as Record<string, number | null>)[k] ?? null;
    printed[k] = all[k] ?? "null";
  }
  metrics[CACHE_HIT_KEY] = res.metrics.kv.cacheHitRate;
  printed[CACHE_HIT_KEY] = formatFixed(res.metrics.kv.cacheHitRate, 4);
  const sustained = res.metrics.sustainedResponsesPerSec ?? null;
  metrics[SUSTAINED_KEY] = sustained;
  printed[SUSTAINED_KEY] = JSON.stringify(sustained);
  const empty: Cdf = { x: [], y: [] };
  let sectionsHtml = "";
  let charts: RunSummary["charts"] = [];
  let cdf = { ttft: empty, itl: empty, e2e: empty };
  if (detail === "full") {
    const d = runReportData(res);
    ({ html: sectionsHtml, charts } = sections(d));
    cdf = { ttft: cdfOf(d.requests.ttftUs), itl: cdfOf(d.requests.itlUs), e2e: cdfOf(d.requests.e2eUs) };
  }
  return {
    stdout: out.fitnessError === null ? out.head + out.tail : out.head,
    metrics,
    printed,
    sectionsHtml,
    charts,
    cdf,
    numInstances: res.metrics.numInstances,
    wallMs,
    log,
  };
}
