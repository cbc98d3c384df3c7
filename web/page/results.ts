// The results of a run: metric cards (with deltas against a pinned baseline), the run report's
// sections and charts, and the exact `blis run` output.

import type { RunSummary } from "../shared/protocol.js";
import { byId, el, fmtValue } from "./dom.js";
import type { ChartGroup } from "./charts.js";

export const CARDS: { key: string; label: string; unit: string; lowerIsBetter: boolean }[] = [
  { key: "ttft_mean_ms", label: "TTFT mean", unit: "ms", lowerIsBetter: true },
  { key: "ttft_p90_ms", label: "TTFT p90", unit: "ms", lowerIsBetter: true },
  { key: "ttft_p99_ms", label: "TTFT p99", unit: "ms", lowerIsBetter: true },
  { key: "itl_mean_ms", label: "ITL mean", unit: "ms", lowerIsBetter: true },
  { key: "itl_p90_ms", label: "ITL p90", unit: "ms", lowerIsBetter: true },
  { key: "itl_p99_ms", label: "ITL p99", unit: "ms", lowerIsBetter: true },
  { key: "e2e_mean_ms", label: "E2E mean", unit: "ms", lowerIsBetter: true },
  { key: "e2e_p90_ms", label: "E2E p90", unit: "ms", lowerIsBetter: true },
  { key: "e2e_p99_ms", label: "E2E p99", unit: "ms", lowerIsBetter: true },
  { key: "sustained_responses_per_sec", label: "Sustained throughput", unit: "req/s", lowerIsBetter: false },
  { key: "responses_per_sec", label: "Throughput (whole run)", unit: "req/s", lowerIsBetter: false },
  { key: "tokens_per_sec", label: "Output tokens", unit: "tok/s", lowerIsBetter: false },
  { key: "cache_hit_rate", label: "Cache hit rate", unit: "", lowerIsBetter: false },
  { key: "preemption_count", label: "Preemptions", unit: "", lowerIsBetter: true },
  { key: "completed_requests", label: "Completed", unit: "requests", lowerIsBetter: false },
  { key: "dropped_unservable", label: "Dropped (unservable)", unit: "", lowerIsBetter: true },
];

/** "+12.3%" style change from a to b, or "" when it cannot be said. */
export function deltaText(a: number | null | undefined, b: number | null | undefined): string {
  if (a === null || a === undefined || b === null || b === undefined) return "";
  if (a === b) return "±0";
  if (a === 0) return b > 0 ? "+∞%" : "−∞%";
  const pct = ((b - a) / Math.abs(a)) * 100;
  return `${pct > 0 ? "+" : "−"}${Math.abs(pct) < 10 ? Math.abs(pct).toFixed(1) : Math.abs(pct).toFixed(0)}%`;
}

function card(c: (typeof CARDS)[number], r: RunSummary, base: RunSummary | null): HTMLElement {
  const v = r.metrics[c.key] ?? null;
  const valueEl = el("div", { class: "v" }, v === null ? "n/a" : fmtValue(v));
  if (c.unit !== "" && v !== null) valueEl.append(el("span", { class: "u", text: c.unit }));
  const box = el(
    "div",
    { class: "card", "data-metric": c.key, "data-value": r.printed[c.key] ?? "" },
    el("div", { class: "k", text: c.label }),
    valueEl,
  );
  if (base !== null) {
    const b = base.metrics[c.key] ?? null;
    const d = deltaText(b, v);
    const better = v !== null && b !== null && v !== b ? v < b === c.lowerIsBetter : null;
    box.append(
      el(
        "div",
        { class: `d${better === null ? "" : better ? " better" : " worse"}`, "data-delta": d },
        `${d === "" ? "" : d + " "}vs ${b === null ? "n/a" : fmtValue(b)}`,
      ),
    );
  }
  return box;
}

export function renderCards(r: RunSummary, base: RunSummary | null): void {
  byId("cards").replaceChildren(...CARDS.map((c) => card(c, r, base)));
}

export function renderResult(r: RunSummary, base: RunSummary | null, charts: ChartGroup): void {
  renderCards(r, base);
  const secs = byId("sections");
  charts.clear();
  secs.innerHTML = r.sectionsHtml;
  charts.draw(r.charts);
  byId("stdout").textContent = r.stdout;
  const log = byId("log");
  const lines = r.log;
  log.textContent = lines.join("\n");
  byId("log-box").hidden = lines.length === 0;
  byId("results").hidden = false;
}

export function summaryLine(r: RunSummary): string {
  const s = r.wallMs >= 1000 ? `${(r.wallMs / 1000).toFixed(2)} s` : `${r.wallMs.toFixed(0)} ms`;
  return `Simulated ${r.metrics["completed_requests"] ?? 0} completed requests on ${r.numInstances} instance${r.numInstances === 1 ? "" : "s"} in ${s}.`;
}

export { el };
