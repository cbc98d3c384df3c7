// plan.json: the question, the price table, the winner, every candidate, the search path, the
// Pareto frontier and the search's own figures.

import { candidateRows, type CandidateRow } from "./candidateRows.js";
import { pointInput } from "./evaluate.js";
import { runArgs } from "./runArgs.js";
import type { PlanResult } from "./plan.js";
import { paretoFrontier, type ParetoPoint } from "./pareto.js";
import { tableLabel } from "./prices.js";
import { seedRuleText } from "./slo.js";

export interface PlanJson {
  format: "blis-plan/1";
  question: Record<string, unknown>;
  price_table: { name: string; date: string; currency: string; file: string; label: string };
  best: Record<string, unknown> | null;
  binding_constraint: string;
  candidates: CandidateRow[];
  pareto: ParetoPoint[];
  search: Record<string, unknown>;
}

function question(r: PlanResult): Record<string, unknown> {
  const q = r.question;
  return {
    model: q.base.model ?? "",
    rate: q.rate,
    requests_per_simulation: q.requests,
    slos: q.slos.map((s) => ({ key: s.key, limit: s.limit })),
    seeds: q.seeds,
    slo_holds: seedRuleText(q.seedRule),
    gpus: q.gpus,
    tp: q.tps,
    pd: q.pds.map((p) => (p.kind === "none" ? "none" : `${p.prefill}:${p.decode}`)),
    max_num_seqs: q.maxNumSeqs,
    max_num_batched_tokens: q.maxNumBatchedTokens,
    max_replicas: q.maxUnits,
    offered: {
      rate: round(r.load.rate),
      mean_input_tokens: round(r.load.meanInput),
      mean_output_tokens: round(r.load.meanOutput),
      prefill_bounded: r.load.prefillBounded,
    },
  };
}

function round(v: number): number {
  return Math.round(v * 1000) / 1000;
}

export function planJson(r: PlanResult): PlanJson {
  const rows = candidateRows(r);
  const best = r.best === null ? null : (rows.find((c) => c.id === r.best!.shape.id) ?? null);
  const p = r.question.prices;
  return {
    format: "blis-plan/1",
    question: question(r),
    price_table: { name: p.name, date: p.date, currency: p.currency, file: p.file, label: tableLabel(p) },
    best:
      best === null
        ? null
        : {
            gpu: best.gpu,
            tp: best.tp,
            pd: best.pd,
            replicas: best.replicas,
            prefill_replicas: best.prefill_replicas,
            decode_replicas: best.decode_replicas,
            gpus: best.gpus,
            max_num_seqs: best.max_num_seqs,
            max_num_batched_tokens: best.max_num_batched_tokens,
            cost_per_hour: best.cost_per_hour,
            usd_per_m_output_tokens: best.usd_per_m_output_tokens,
            tokens_per_sec_per_gpu: best.tokens_per_sec_per_gpu,
            tokens_per_sec_per_user: best.tokens_per_sec_per_user,
            slos: best.slos,
            latency_backend: r.backends.get(`${best.gpu}/${best.tp}`) ?? "",
            run_args: runArgs(
              pointInput(r.question, {
                shape: r.best!.shape,
                units: r.best!.hi!,
                rate: r.question.rate,
                requests: r.question.requests,
              }),
            ),
          },
    binding_constraint: r.bindingConstraint,
    candidates: rows,
    pareto: paretoFrontier(r),
    search: {
      steps: r.steps,
      simulations: r.simulations,
      exhaustive_simulations: r.exhaustive,
      shapes_searched: r.searches.length,
      shapes_skipped: r.skipped.length,
      monotonicity: {
        note: "feasibility is assumed monotone in the copies of a shape; checked on every pair of points run",
        pairs_checked: r.monotonicity.pairs,
        violations: r.monotonicity.violations,
      },
    },
  };
}
