// report.html of a plan: the ranked candidates, the Pareto frontier of tokens/s per GPU against
// tokens/s per user, the search path (copies tried per step and shape), and the schedule when
// there is one. Built with the report machinery of src/report (one self-contained page).

import { MUTED_COLOR, paletteColor, type ChartSpec, type DatasetSpec } from "../report/chartSpec.js";
import { cards, ChartSet, emptyNote, esc, renderPage, section, table, type Cell } from "../report/html.js";
import type { PlanJson } from "./output.js";
import type { SchedulePlan } from "./schedule.js";

function candidatesSection(j: PlanJson): string {
  const cols = [
    "deployment",
    "status",
    "GPUs",
    `cost/h (${j.price_table.currency})`,
    "$/M out tok",
    "tok/s/GPU",
    "tok/s/user",
    "SLOs (value, margin)",
    "reason",
  ];
  const rows: Cell[][] = j.candidates.map((c) => [
    c.id,
    c.status,
    c.gpus,
    c.cost_per_hour,
    c.usd_per_m_output_tokens,
    c.tokens_per_sec_per_gpu,
    c.tokens_per_sec_per_user,
    c.slos
      .map((s) => `${s.key} ${s.value ?? "-"} (${s.margin === null ? "-" : `${(s.margin * 100).toFixed(0)}%`})`)
      .join(", "),
    c.reason,
  ]);
  const lead = `Every candidate shape: its fewest copies meeting the SLOs, or why it has none. Costs from <b>${esc(j.price_table.label)}</b> (${esc(j.price_table.file)}).`;
  return section(
    "candidates",
    "Candidates",
    lead,
    table(cols, rows, {
      right: [false, false, true, true, true, true, true, false, false],
      wrap: [false, false, false, false, false, false, false, true, true],
    }),
  );
}

function paretoSection(j: PlanJson, charts: ChartSet): string {
  const pts = j.pareto;
  if (pts.length === 0)
    return section("pareto", "Pareto frontier", "", emptyNote("Pareto frontier", "no point met the SLOs"));
  const front = pts.filter((p) => p.on_frontier).sort((a, b) => a.tokens_per_sec_per_user - b.tokens_per_sec_per_user);
  const datasets: DatasetSpec[] = [
    {
      label: "points that met the SLOs",
      color: MUTED_COLOR,
      type: "scatter",
      x: pts.map((p) => p.tokens_per_sec_per_user),
      y: pts.map((p) => p.tokens_per_sec_per_gpu),
      notes: pts.map((p) => `${p.shape} x${p.copies} (${p.gpus} GPUs)`),
    },
    {
      label: "frontier",
      color: paletteColor(0),
      type: "line",
      dash: [5, 4],
      radius: 4,
      x: front.map((p) => p.tokens_per_sec_per_user),
      y: front.map((p) => p.tokens_per_sec_per_gpu),
      pointLabels: front.map((p) => `${p.shape} x${p.copies}`),
    },
  ];
  const spec: ChartSpec = {
    id: "pareto",
    kind: "scatter",
    title: "Output tokens/s per GPU against tokens/s per user",
    note: "every point the search ran that met the SLOs; the frontier is not dominated on both axes",
    xLabel: "tokens/s per user (1000 / mean ITL)",
    yLabel: "output tokens/s per GPU",
    datasets,
  };
  return section(
    "pareto",
    "Pareto frontier",
    "Throughput per GPU against interactivity per user.",
    charts.figure(spec),
  );
}

function pathSection(j: PlanJson, charts: ChartSet): string {
  const searched = j.candidates.filter((c) => c.path.length > 0);
  const datasets: DatasetSpec[] = searched.map((c, i) => ({
    label: c.id,
    color: paletteColor(i),
    type: "line",
    radius: 4,
    x: c.path.map((p) => p.step),
    y: c.path.map((p) => p.copies),
    notes: c.path.map((p) => (p.feasible ? "met the SLOs" : p.reason)),
  }));
  const spec: ChartSpec = {
    id: "search-path",
    kind: "line",
    title: "Copies tried per step",
    note: "exponential then binary search per shape, from its physical lower bound",
    xLabel: "step",
    yLabel: "copies",
    xScale: "linear",
    yInteger: true,
    datasets,
  };
  const rows: Cell[][] = searched.flatMap((c) =>
    c.path.map((p) => [p.step, c.id, p.copies, p.feasible ? "yes" : "no", p.reason]),
  );
  const s = j.search;
  const lead = `${String(s["simulations"])} simulations over ${String(s["steps"])} steps (an exhaustive sweep of 1..${String(j.question["max_replicas"])} copies would run ${String(s["exhaustive_simulations"])}).`;
  return section(
    "path",
    "Search path",
    lead,
    charts.figure(spec) +
      table(["step", "shape", "copies", "met", "why not"], rows, {
        right: [true, false, true, false, false],
        wrap: [false, false, false, false, true],
      }),
  );
}

function scheduleSection(s: SchedulePlan): string {
  const rows: Cell[][] = s.intervals.map((x) => [`${x.start}-${x.end}`, x.rate, x.copies, x.gpus, x.cost_per_hour]);
  const lead = `${esc(s.shape)}: ${s.gpu_hours} GPU-hours against ${s.fixed_peak_gpu_hours} for a fleet fixed at the peak (saving ${(s.saving_fraction * 100).toFixed(1)}%).`;
  return section(
    "schedule",
    "Schedule",
    lead,
    table(["interval", "rate", "copies", "GPUs", "cost/h"], rows, { right: [false, true, true, true, true] }),
  );
}

export function planReportHtml(j: PlanJson & { schedule?: SchedulePlan }): string {
  const charts = new ChartSet();
  const best = j.best;
  const head = cards(
    best === null
      ? [{ label: "result", value: "nothing feasible" }]
      : [
          {
            label: "deployment",
            value: `${String(best["replicas"])} x ${String(best["gpu"])} TP${String(best["tp"])}${best["pd"] !== "none" ? ` PD ${String(best["pd"])}` : ""}`,
          },
          { label: "GPUs", value: String(best["gpus"]) },
          {
            label: "cost/h",
            value: String(best["cost_per_hour"]),
            unit: j.price_table.currency,
            title: j.price_table.label,
          },
        ],
  );
  const parts = [head, candidatesSection(j), paretoSection(j, charts), pathSection(j, charts)];
  const nav = [
    { id: "candidates", label: "Candidates" },
    { id: "pareto", label: "Pareto" },
    { id: "path", label: "Search path" },
  ];
  if (j.schedule !== undefined) {
    parts.push(scheduleSection(j.schedule));
    nav.push({ id: "schedule", label: "Schedule" });
  }
  return renderPage({
    title: `Plan: ${String(j.question["model"])} at ${String(j.question["rate"])} req/s`,
    subtitle: esc(
      `SLOs ${(j.question["slos"] as { key: string; limit: number }[]).map((s) => `${s.key}=${s.limit}`).join(", ")}; prices: ${j.price_table.label}`,
    ),
    nav,
    body: parts.join("\n"),
    charts,
    footer: "Generated by blis plan.",
  });
}
