// One row per candidate shape: its minimum copies and what they deliver, or why it has none.

import type { PlanResult } from "./plan.js";
import { tableLabel } from "./prices.js";
import { hourlyCost } from "./rank.js";
import type { PathPoint, ShapeSearch } from "./search.js";
import { gpusOf, pdText, type Shape } from "./shapes.js";

export interface SloCell {
  key: string;
  limit: number;
  value: number | null;
  margin: number | null;
}

export interface CandidateRow {
  id: string;
  gpu: string;
  tp: number;
  pd: string;
  max_num_seqs: number;
  max_num_batched_tokens: number;
  /** found (minimum copies known), dearer (stopped: cannot beat the best), infeasible, skipped. */
  status: "found" | "dearer" | "infeasible" | "skipped";
  reason: string;
  lower_bound: { copies: number; by: string } | null;
  /** Copies of the shape (a copy is one instance, or prefill + decode instances for a split). */
  copies: number | null;
  replicas: number | null;
  prefill_replicas: number | null;
  decode_replicas: number | null;
  gpus: number | null;
  cost_per_hour: number | null;
  usd_per_m_output_tokens: number | null;
  tokens_per_sec_per_gpu: number | null;
  tokens_per_sec_per_user: number | null;
  slos: SloCell[];
  /** The points run for this shape, in the order they were run. */
  path: { step: number; copies: number; feasible: boolean; reason: string }[];
}

function deploymentCounts(
  s: Shape,
  copies: number,
): Pick<CandidateRow, "replicas" | "prefill_replicas" | "decode_replicas" | "gpus"> {
  return {
    replicas: gpusOf(s, copies) / s.tp,
    prefill_replicas: s.pd.kind === "split" ? s.pd.prefill * copies : null,
    decode_replicas: s.pd.kind === "split" ? s.pd.decode * copies : null,
    gpus: gpusOf(s, copies),
  };
}

function emptyRow(shape: Shape): CandidateRow {
  return {
    id: shape.id,
    gpu: shape.gpu,
    tp: shape.tp,
    pd: pdText(shape.pd),
    max_num_seqs: shape.maxNumSeqs,
    max_num_batched_tokens: shape.maxNumBatchedTokens,
    status: "skipped",
    reason: "",
    lower_bound: null,
    copies: null,
    replicas: null,
    prefill_replicas: null,
    decode_replicas: null,
    gpus: null,
    cost_per_hour: null,
    usd_per_m_output_tokens: null,
    tokens_per_sec_per_gpu: null,
    tokens_per_sec_per_user: null,
    slos: [],
    path: [],
  };
}

/** What a point of a shape delivers (cost, throughput per GPU and per user, SLO values). */
export function pointFigures(s: ShapeSearch, p: PathPoint): Partial<CandidateRow> {
  const gpus = gpusOf(s.shape, p.units);
  const cost = hourlyCost(gpus, s.pricePerGpu);
  const tps = p.verdict.outputTokensPerSec;
  return {
    ...deploymentCounts(s.shape, p.units),
    copies: p.units,
    cost_per_hour: cost,
    usd_per_m_output_tokens: tps !== null && tps > 0 ? round((gpus * s.pricePerGpu * 1e6) / (tps * 3600), 4) : null,
    tokens_per_sec_per_gpu: tps === null ? null : round(tps / gpus, 2),
    tokens_per_sec_per_user: p.verdict.tokensPerSecPerUser === null ? null : round(p.verdict.tokensPerSecPerUser, 2),
    slos: p.verdict.slos.map((r) => ({
      key: r.key,
      limit: r.limit,
      value: r.value === null ? null : round(r.value, 4),
      margin: r.margin === null ? null : round(r.margin, 4),
    })),
  };
}

function round(v: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(v * f) / f;
}

function searchedRow(s: ShapeSearch, maxUnits: number): CandidateRow {
  const row = emptyRow(s.shape);
  row.lower_bound = { copies: s.bound.units, by: s.bound.by };
  row.path = s.path.map((p) => ({ step: p.step, copies: p.units, feasible: p.feasible, reason: p.reason }));
  if (s.end === "found" && s.hi !== null) {
    row.status = "found";
    Object.assign(
      row,
      pointFigures(
        s,
        s.path.find((p) => p.units === s.hi && p.feasible)!,
      ),
    );
  } else if (s.end === "dearer") {
    row.status = "dearer";
    row.reason = dearerReason(s);
  } else {
    row.status = "infeasible";
    const last = [...s.path].sort((a, b) => b.units - a.units)[0];
    row.reason = `not met at ${maxUnits} copies${last !== undefined ? `: ${last.reason}` : ""}`;
  }
  return row;
}

/** Why a stopped shape cannot win: its lower bound already, or the copies it was shown to need. */
function dearerReason(s: ShapeSearch): string {
  if (s.path.length === 0) {
    const gpus = gpusOf(s.shape, s.bound.units);
    return `not run: its lower bound (${s.bound.units} copies, ${gpus} GPUs, ${hourlyCost(gpus, s.pricePerGpu).toFixed(2)}/h) is dearer than the best`;
  }
  const more = gpusOf(s.shape, s.lo + 1);
  const what = s.hi === null ? "needs" : "its minimum needs";
  return `${what} more than ${s.lo} copies (${more} GPUs or more, ${hourlyCost(more, s.pricePerGpu).toFixed(2)}/h or more), dearer than the best`;
}

/**
 * Every candidate: found ones ranked (cheapest first), then stopped, infeasible and skipped ones in candidate order.
 */
export function candidateRows(r: PlanResult): CandidateRow[] {
  const rows = r.searches.map((s) => ({ s, row: searchedRow(s, r.question.maxUnits) }));
  const found = rows.filter((x) => x.row.status === "found");
  found.sort(
    (a, b) => a.row.cost_per_hour! - b.row.cost_per_hour! || a.row.gpus! - b.row.gpus! || a.s.index - b.s.index,
  );
  const rest = rows.filter((x) => x.row.status !== "found").sort((a, b) => a.s.index - b.s.index);
  const skipped = r.skipped.map((k) => ({
    ...emptyRow(k.shape),
    status: "skipped" as const,
    reason: `${k.kind}: ${k.reason}`,
  }));
  return [...found.map((x) => x.row), ...rest.map((x) => x.row), ...skipped];
}

export function priceNote(r: PlanResult): string {
  return `${r.question.prices.currency}/h from ${tableLabel(r.question.prices)}`;
}
