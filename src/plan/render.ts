// The ranked table on stdout and the one-line summary.

import type { CandidateRow } from "./candidateRows.js";
import type { PlanJson } from "./output.js";

function num(v: number | null, digits: number): string {
  return v === null ? "-" : v.toFixed(digits);
}

function sloCell(c: CandidateRow["slos"][number], goodput: boolean): string {
  if (c.value === null) return "-";
  const value = goodput ? c.value.toFixed(3) : c.value.toFixed(1);
  const m = c.margin === null ? "" : ` (${c.margin >= 0 ? "+" : ""}${(c.margin * 100).toFixed(0)}%)`;
  return value + m;
}

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]): string =>
    cells
      .map((c, i) => (i < 2 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
      .join("  ")
      .trimEnd();
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n");
}

function deploymentText(c: CandidateRow): string {
  if (c.pd === "none") return `${c.replicas} x ${c.gpu} TP${c.tp}`;
  return `${c.prefill_replicas}P+${c.decode_replicas}D x ${c.gpu} TP${c.tp}`;
}

/** The ranked table of candidates that met the SLOs, then a count of the others. */
export function renderTable(j: PlanJson): string {
  const found = j.candidates.filter((c) => c.status === "found");
  const sloKeys = (j.question["slos"] as { key: string; limit: number }[]).map((s) => s);
  const header = [
    "rank",
    "deployment",
    "GPUs",
    `cost/h`,
    "$/M out tok",
    "tok/s/GPU",
    "tok/s/user",
    ...sloKeys.map((s) => (s.key === "goodput" ? `goodput>=${s.limit}` : `${s.key}<=${s.limit}`)),
  ];
  const limitsVary =
    (j.question["max_num_seqs"] as number[]).length > 1 ||
    (j.question["max_num_batched_tokens"] as number[]).length > 1;
  const rows = found.map((c, i) => [
    String(i + 1),
    deploymentText(c) + (limitsVary ? ` seqs ${c.max_num_seqs} mbt ${c.max_num_batched_tokens}` : ""),
    String(c.gpus),
    num(c.cost_per_hour, 2),
    num(c.usd_per_m_output_tokens, 3),
    num(c.tokens_per_sec_per_gpu, 1),
    num(c.tokens_per_sec_per_user, 1),
    ...c.slos.map((s) => sloCell(s, s.key === "goodput")),
  ]);
  const out: string[] = [];
  out.push(`Prices: ${j.price_table.currency} per hour, ${j.price_table.label} (${j.price_table.file})`);
  out.push(
    `SLOs hold ${String(j.question["slo_holds"])} (${(j.question["seeds"] as number[]).length} seeds); margins are headroom against each target`,
  );
  out.push("");
  out.push(found.length > 0 ? table(header, rows) : "No candidate met the SLOs.");
  const count = (s: CandidateRow["status"]): number => j.candidates.filter((c) => c.status === s).length;
  out.push("");
  out.push(
    `${found.length} shape${found.length === 1 ? "" : "s"} met the SLOs; ${count("dearer")} stopped as dearer than the best; ${count("infeasible")} infeasible up to ${String(j.question["max_replicas"])} copies; ${count("skipped")} skipped (see plan.json)`,
  );
  return out.join("\n") + "\n";
}

/** One line: the winner and its cost (naming the price table), and the search's figures. */
export function summaryLine(j: PlanJson): string {
  const s = j.search;
  const sims = `${String(s["simulations"])} simulations (an exhaustive sweep would run ${String(s["exhaustive_simulations"])})`;
  if (j.best === null) return `plan: nothing feasible: ${j.binding_constraint}; ${sims}`;
  const b = j.candidates.find((c) => c.status === "found")!;
  return `plan: best ${deploymentText(b)} (${b.gpus} GPU${b.gpus === 1 ? "" : "s"}) at ${j.price_table.currency} ${num(b.cost_per_hour, 2)}/h (${j.price_table.label}); ${sims}`;
}
