// Every evaluation as CSV and JSON, and the convergence table (markdown for convergence.md,
// plain text for stdout).

import type { BestSummary } from "./best.js";
import { isBetter, recordedMetrics, type Evaluated } from "./evaluate.js";
import { fmtValue } from "./format.js";
import type { ParamValue } from "./parameters.js";
import type { OptimizeResult } from "./search.js";
import type { OptimizeSpace } from "./space.js";

function csvCell(v: string): string {
  return /[",\n\r]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v;
}

function raw(v: number | null | undefined): string {
  return v === null || v === undefined ? "" : String(v);
}

function value(v: ParamValue | undefined): string {
  return v === undefined ? "" : String(v);
}

export function renderEvaluationsCsv(res: OptimizeResult): string {
  const { space } = res;
  const metrics = recordedMetrics(space);
  const header = [
    "evaluation",
    "source",
    "feasible",
    ...space.parameters.map((p) => p.name),
    `${space.objective.metric}_mean`,
    ...space.seeds.map((s) => `${space.objective.metric}_seed_${s}`),
    ...space.constraints.map((c, i) => `constraint_${i + 1}_${c.metric}`),
    ...metrics.filter((m) => m !== space.objective.metric).map((m) => `${m}_mean`),
    "reason",
  ];
  const rows = [header];
  const line = (label: string, e: Evaluated): string[] => [
    label,
    e.rec.source,
    e.feasible ? "yes" : "no",
    ...space.parameters.map((p) => value(e.rec.params[p.name])),
    raw(e.objective),
    ...e.perSeed.map(raw),
    ...e.constraints.map((c) => raw(c.value)),
    ...metrics.filter((m) => m !== space.objective.metric).map((m) => raw(e.means[m])),
    e.reason,
  ];
  if (res.baseline !== null) rows.push(line("baseline", res.baseline));
  res.evaluations.forEach((e) => rows.push(line(String(e.rec.index + 1), e)));
  return rows.map((r) => r.map(csvCell).join(",")).join("\n") + "\n";
}

function evalJson(space: OptimizeSpace, e: Evaluated): Record<string, unknown> {
  return {
    evaluation: e.rec.kind === "baseline" ? "baseline" : e.rec.index + 1,
    source: e.rec.source,
    params: e.rec.params,
    feasible: e.feasible,
    reason: e.reason,
    objective: {
      mean: e.objective,
      per_seed: Object.fromEntries(space.seeds.map((s, i) => [String(s), e.perSeed[i] ?? null])),
    },
    constraints: e.constraints.map((c) => ({
      metric: c.metric,
      value: c.value,
      min: c.min,
      max: c.max,
      bound: c.text,
      ok: c.ok,
    })),
    metrics: e.means,
    runs: e.rec.runs.map((r) => ({
      seed: r.seed,
      status: r.status,
      error: r.error,
      metrics: r.metrics,
      wall_s: r.wall_s,
    })),
  };
}

export function renderEvaluationsJson(res: OptimizeResult, best: BestSummary | null): string {
  const { space } = res;
  return (
    JSON.stringify(
      {
        name: space.name,
        space_hash: space.hash,
        objective: { metric: space.objective.metric, direction: space.objective.direction },
        seeds: space.seeds,
        budget: space.budget,
        initial: space.initial,
        batch: res.batch,
        baseline: res.baseline === null ? null : evalJson(space, res.baseline),
        evaluations: res.evaluations.map((e) => evalJson(space, e)),
        best:
          best === null
            ? null
            : {
                evaluation: best.e.rec.index + 1,
                params: best.e.rec.params,
                objective: best.e.objective,
                command: best.command,
                bundle_command: best.bundleCommand,
                policy_bundle: best.bundle.bundle,
              },
      },
      null,
      2,
    ) + "\n"
  );
}

export interface ConvergenceRow {
  n: number;
  source: string;
  value: number | null;
  feasible: boolean;
  best: number | null;
}

export function convergenceRows(res: OptimizeResult): ConvergenceRow[] {
  let best: number | null = null;
  return res.evaluations.map((e) => {
    if (e.feasible && e.objective !== null && (best === null || isBetter(res.space, e.objective, best)))
      best = e.objective;
    return { n: e.rec.index + 1, source: e.rec.source, value: e.objective, feasible: e.feasible, best };
  });
}

function table(header: string[], rows: string[][], markdown: boolean): string {
  const widths = header.map((h, j) => Math.max(h.length, ...rows.map((r) => r[j]!.length)));
  const right = (j: number): boolean => j !== 1 && j !== 3;
  const fmtRow = (r: string[]): string => {
    const cells = r.map((c, j) => (right(j) ? c.padStart(widths[j]!) : c.padEnd(widths[j]!)));
    return markdown ? `| ${cells.join(" | ")} |` : cells.join("  ");
  };
  const out = [fmtRow(header)];
  if (markdown)
    out.push(`|${widths.map((w, j) => (right(j) ? "-".repeat(w + 1) + ":" : "-".repeat(w + 2))).join("|")}|`);
  else out.push(widths.map((w) => "-".repeat(w)).join("  "));
  for (const r of rows) out.push(fmtRow(r));
  return out.join("\n") + "\n";
}

export function renderConvergence(res: OptimizeResult, markdown: boolean): string {
  const m = res.space.objective.metric;
  const rows = convergenceRows(res).map((r) => [
    String(r.n),
    r.source,
    r.value === null ? "-" : fmtValue(r.value),
    r.feasible ? "yes" : "no",
    r.best === null ? "-" : fmtValue(r.best),
  ]);
  if (res.baseline !== null) {
    const b = res.baseline;
    rows.unshift([
      "baseline",
      "baseline",
      b.objective === null ? "-" : fmtValue(b.objective),
      b.feasible ? "yes" : "no",
      "-",
    ]);
  }
  return table(["#", "source", m, "feasible", "best so far"], rows, markdown);
}
