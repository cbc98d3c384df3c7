// Rate sweep: the configuration at evenly spaced rates (several workers at once), drawn as the
// latency–throughput curve with the SLO marked, and the highest swept rate that meets it.

import type { ChartSpec } from "../../src/report/chartSpec.js";
import type { Params } from "../shared/protocol.js";
import { byId, el, fmtValue } from "./dom.js";
import { ChartGroup, figure } from "./charts.js";
import { SimWorker } from "./workerClient.js";

export interface SweepSettings {
  from: number;
  to: number;
  points: number;
  requests: number;
  sloTtftMs: number;
  sloItlMs: number;
}

export interface SweepPoint {
  rate: number;
  /** Completions per second while arrivals still come (null: too few requests for a steady stretch). */
  sustained: number | null;
  throughput: number;
  ttftP99: number | null;
  itlP99: number | null;
  ok: boolean;
}

const charts = new ChartGroup();
let active: SimWorker[] = [];

export function sweepRates(s: SweepSettings): number[] {
  const n = Math.max(2, Math.min(40, Math.round(s.points)));
  return Array.from({ length: n }, (_, i) => Number((s.from + ((s.to - s.from) * i) / (n - 1)).toPrecision(6)));
}

function withRate(params: Params, rate: number, requests: number): Params {
  const rest = params.filter(([n]) => n !== "rate" && n !== "num-requests" && n !== "concurrency");
  return [...rest, ["rate", String(rate)], ["num-requests", String(requests)]];
}

export function cancelSweep(): void {
  for (const w of active) w.terminate();
  active = [];
}

/** Runs the sweep; null when it was cancelled, else the points in rate order (or the first error). */
export async function runSweep(
  params: Params,
  s: SweepSettings,
  onPoint: (done: number, total: number) => void,
): Promise<SweepPoint[] | string | null> {
  const rates = sweepRates(s);
  const n = Math.max(1, Math.min(4, (navigator.hardwareConcurrency || 2) - 1, rates.length));
  const workers = Array.from({ length: n }, () => new SimWorker());
  active = workers;
  const out: (SweepPoint | null)[] = rates.map(() => null);
  let next = 0;
  let done = 0;
  let error: string | null = null;
  const loop = async (w: SimWorker): Promise<void> => {
    while (next < rates.length && error === null) {
      const i = next++;
      const rate = rates[i]!;
      const r = await w.run(withRate(params, rate, s.requests), "metrics", () => undefined);
      if (!r.ok) {
        error = r.errors[0]?.message ?? "failed";
        return;
      }
      const m = r.result.metrics;
      const ttft = m["ttft_p99_ms"] ?? null;
      const itl = m["itl_p99_ms"] ?? null;
      const ok = ttft !== null && itl !== null && ttft <= s.sloTtftMs && itl <= s.sloItlMs;
      const sustained = m["sustained_responses_per_sec"] ?? null;
      out[i] = { rate, sustained, throughput: m["responses_per_sec"] ?? 0, ttftP99: ttft, itlP99: itl, ok };
      onPoint(++done, rates.length);
    }
  };
  await Promise.all(workers.map(loop));
  const cancelled = active !== workers;
  for (const w of workers) w.terminate();
  if (cancelled) return null;
  active = [];
  if (error !== null) return error === "cancelled" ? null : error;
  return out.filter((p): p is SweepPoint => p !== null);
}

function curve(points: SweepPoint[], s: SweepSettings): ChartSpec {
  const x = points.map((p) => p.throughput);
  const lost = points.findIndex((p) => !p.ok);
  const refLines: NonNullable<ChartSpec["refLines"]> = [
    { axis: "y", value: s.sloTtftMs, label: `TTFT p99 SLO ${s.sloTtftMs} ms` },
  ];
  if (lost >= 0)
    refLines.push({ axis: "x", value: points[lost]!.throughput, label: `SLO lost at ${points[lost]!.rate} req/s` });
  return {
    id: "sweep-curve",
    kind: "line",
    title: "Latency vs throughput",
    note: "Each point is one rate; crosses mark rates that miss the SLO (TTFT p99 or ITL p99).",
    xLabel: "throughput (completed req/s)",
    yLabel: "TTFT p99 (ms)",
    y2Label: "ITL p99 (ms)",
    yScale: "logarithmic",
    datasets: [
      {
        label: "TTFT p99",
        color: "#4e79a7",
        x,
        y: points.map((p) => p.ttftP99),
        radius: 4,
        width: 2,
        pointLabels: points.map((p) => `${p.rate}`),
      },
      {
        label: "ITL p99",
        color: "#f28e2b",
        x,
        y: points.map((p) => p.itlP99),
        radius: 3,
        width: 1.5,
        rightAxis: true,
        dash: [5, 3],
      },
      {
        label: "misses SLO",
        color: "#e15759",
        type: "scatter",
        x,
        y: points.map((p) => (p.ok ? null : p.ttftP99)),
        pointStyle: "crossRot",
        radius: 8,
      },
    ],
    refLines,
    legend: true,
    xUnit: "req/s",
    yUnit: "ms",
    height: 340,
  };
}

export function renderSweep(points: SweepPoint[], s: SweepSettings, instances: number): void {
  const lastOk = points.filter((p) => p.ok).pop();
  const answer =
    lastOk === undefined
      ? `No swept rate meets the SLO (TTFT p99 ≤ ${s.sloTtftMs} ms, ITL p99 ≤ ${s.sloItlMs} ms).`
      : `Highest swept rate meeting the SLO (TTFT p99 ≤ ${s.sloTtftMs} ms, ITL p99 ≤ ${s.sloItlMs} ms): ${lastOk.rate} req/s` +
        (instances > 1 ? ` (${fmtValue(lastOk.rate / instances)} req/s per instance)` : "") +
        (lastOk.sustained !== null ? `, ${fmtValue(lastOk.sustained)} sustained req/s` : "") +
        `, ${fmtValue(lastOk.throughput)} completed req/s over the whole run.`;
  const spec = curve(points, s);
  const rows = points.map((p) =>
    el(
      "tr",
      { "data-rate": String(p.rate), "data-ok": String(p.ok) },
      el("td", { class: "num", text: String(p.rate) }),
      el("td", { class: "num", text: p.sustained === null ? "n/a" : fmtValue(p.sustained) }),
      el("td", { class: "num", text: fmtValue(p.throughput) }),
      el("td", { class: "num", text: p.ttftP99 === null ? "n/a" : fmtValue(p.ttftP99) }),
      el("td", { class: "num", text: p.itlP99 === null ? "n/a" : fmtValue(p.itlP99) }),
      el("td", { text: p.ok ? "meets" : "misses" }),
    ),
  );
  const head = el(
    "tr",
    {},
    ...[
      "rate (req/s)",
      "sustained (req/s)",
      "throughput, whole run (req/s)",
      "TTFT p99 (ms)",
      "ITL p99 (ms)",
      "SLO",
    ].map((h) => el("th", { scope: "col", text: h })),
  );
  const fig = el("div");
  fig.innerHTML = figure(spec);
  charts.clear();
  byId("sweep-body").replaceChildren(
    el("p", { id: "sweep-answer", class: "answer", text: answer }),
    fig,
    el(
      "div",
      { class: "table-wrap" },
      el("table", { id: "sweep-table" }, el("thead", {}, head), el("tbody", {}, ...rows)),
    ),
  );
  charts.draw([spec]);
}
