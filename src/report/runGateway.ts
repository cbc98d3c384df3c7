// The run report's gateway section (docs/gateway.md "Output"): queue depth per priority band over
// time, the gateway's counters, goodput per SLO class and per-tenant throughput.

import type { RunReportData } from "./runData.js";
import type { GatewaySeries } from "../metrics/timeSeries.js";
import { paletteColor, type ChartSpec } from "./chartSpec.js";
import { thin } from "./stats.js";
import { ChartSet, cards, esc, table, type Cell } from "./html.js";

const MAX_POINTS = 600;
/** Default classes per priority (docs/gateway.md "Priorities"), for band labels. */
const CLASS_OF: Record<number, string> = {
  4: "critical",
  3: "standard",
  [-1]: "batch",
  [-2]: "sheddable",
  [-3]: "background",
};

/** Whether the run has anything for this section. */
export function hasGatewaySection(d: RunReportData): boolean {
  return d.metrics.gateway !== undefined || d.metrics.cluster.per_class !== undefined;
}

export function gatewaySection(charts: ChartSet, d: RunReportData): string {
  const m = d.metrics;
  const g = m.gateway;
  let out = `<p class="lead">${esc("Flow control between admission and routing, shedding by class, and goodput against the SLO targets.")}</p>`;
  if (g !== undefined) {
    out += cards([
      { label: "dispatched", value: String(g.dispatched) },
      { label: "rejected / shed / expired", value: `${g.rejected} / ${g.shed} / ${g.expired}` },
      { label: "evicted in flight", value: String(g.evicted) },
      ...(g.timedOut > 0 ? [{ label: "timed out waiting", value: String(g.timedOut) }] : []),
      { label: "waiting at the end", value: String(g.depth) },
    ]);
    const s = d.timeSeries?.gateway;
    if (g.flowControl && s !== undefined && d.timeSeries!.timesUs.length > 0)
      out += charts.figure(depthChart(d.timeSeries!.timesUs, s));
    if (g.shedByTier.length > 0)
      out += table(["class", "shed"], g.shedByTier, {
        right: [false, true],
        caption: "Shed by class (admission rejections, shed victims, expiries, evictions)",
      });
  }
  const pc = m.cluster.per_class;
  if (pc !== undefined) {
    const rows: Cell[][] = Object.entries(pc).map(([cls, c]) => [
      cls,
      c.count,
      c.slo_attainment,
      Object.entries(c.slo_attainment_by_dim)
        .map(([k, v]) => `${k} ${(v * 100).toFixed(1)}%`)
        .join(", "),
      c.goodput_rps,
      c.ttft_p99_ms ?? null,
      c.e2e_p99_ms ?? null,
    ]);
    out += table(
      ["class", "arrivals", "attainment", "by dimension", "goodput (req/s)", "TTFT p99 (ms)", "E2E p99 (ms)"],
      rows,
      {
        right: [false, true, true, false, true, true, true],
        caption: "Goodput per SLO class (attainment = good requests / arrivals)",
      },
    );
  }
  const t = m.tenants;
  if (t !== undefined && t !== null) {
    const dur = m.cluster.vllm_estimated_duration_s;
    if (dur > 0) out += charts.figure(tenantChart(t.tenants, dur, t.jain));
    const rows: Cell[][] = t.tenants.map(([id, n, tok]) => [id, n, tok, dur > 0 ? tok / dur : null]);
    out += table(["tenant", "completed", "output tokens", "output tokens/s"], rows, {
      right: [false, true, true, true],
      caption: `Per tenant (Jain's index over tokens ${t.jain.toFixed(4)})`,
    });
  }
  return out;
}

/** Output-token throughput per tenant over the run: the quantity Jain's index compares. */
function tenantChart(tenants: readonly [string, number, number][], durationS: number, jain: number): ChartSpec {
  return {
    id: "gateway-tenants",
    kind: "bar",
    title: "Throughput per tenant",
    note: `Output tokens of each tenant's completed requests per second of the run; Jain's index ${jain.toFixed(4)} (1 = equal shares).`,
    xLabel: "tenant",
    yLabel: "output tokens/s",
    labels: tenants.map(([id]) => id),
    allLabels: true,
    datasets: [{ label: "output tokens/s", color: paletteColor(0), y: tenants.map(([, , tok]) => tok / durationS) }],
    yMin: 0,
    legend: false,
  };
}

function depthChart(timesUs: readonly number[], s: GatewaySeries): ChartSpec {
  const x = thin(
    timesUs.map((t) => t / 1e6),
    MAX_POINTS,
    "last",
  );
  return {
    id: "gateway-depth",
    kind: "line",
    title: "Gateway queue depth by priority band",
    note: "Requests waiting in each band at every time-series sample.",
    xLabel: "simulated time (s)",
    yLabel: "waiting requests",
    x,
    datasets: s.priorities.map((p, k) => ({
      label: `priority ${p}${CLASS_OF[p] !== undefined ? ` (${CLASS_OF[p]})` : ""}`,
      color: paletteColor(k),
      y: thin(s.depth[k]!, MAX_POINTS, "last"),
      order: k,
    })),
    xMin: 0,
    yMin: 0,
    yInteger: true,
    tooltip: "index",
    xUnit: "s",
    height: 300,
  };
}
