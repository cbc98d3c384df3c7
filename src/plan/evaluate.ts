// Evaluating points: one point is a shape at a number of copies (and a rate), simulated over every
// seed on the sweep engine's pool. Finished evaluations are kept in evaluations.jsonl and reused.

import fs from "node:fs";
import path from "node:path";
import type { RunInput } from "../config/runOptions.js";
import { canonicalHash } from "../experiment/canonical.js";
import { extractMetric, runCells, SweepPool, type CellSpec, type RunExecutor } from "../experiment/index.js";
import { JsonlLog } from "../util/jsonlLog.js";
import type { PlanQuestion, PlanRuntime } from "./question.js";
import { gpusOf, type Shape } from "./shapes.js";
import { goodputTargets } from "./slo.js";

/** Metrics kept for every run. */
export const RECORDED = [
  "ttft_mean",
  "ttft_p90",
  "ttft_p95",
  "ttft_p99",
  "itl_mean",
  "itl_p90",
  "itl_p95",
  "itl_p99",
  "e2e_mean",
  "e2e_p90",
  "e2e_p95",
  "e2e_p99",
  "tokens_per_sec",
  "throughput",
  "completed",
  "injected",
  "rejected",
  "dropped",
  "slo_attainment",
  "steady_completion_ratio",
];

export interface SeedOutcome {
  seed: number;
  /** `ok`, `timeout`, `error:<exit code>`. */
  status: string;
  error: string;
  metrics: Record<string, number | null>;
}

export interface Evaluation {
  v: 1;
  key: string;
  shape: string;
  units: number;
  rate: number;
  /** Requests per simulation. */
  requests: number;
  gpus: number;
  seeds: SeedOutcome[];
}

export interface Point {
  shape: Shape;
  units: number;
  rate: number;
  /** Requests per simulation. */
  requests: number;
}

function isEvaluation(v: unknown): v is Evaluation {
  return (
    v !== null &&
    typeof v === "object" &&
    (v as { v?: unknown }).v === 1 &&
    Array.isArray((v as { seeds?: unknown }).seeds)
  );
}

/** Run options of a point (without the seed). */
export function pointInput(q: PlanQuestion, p: Point): RunInput {
  const s = p.shape;
  const instances = gpusOf(s, p.units) / s.tp;
  const input: RunInput = {
    ...q.base,
    hardware: s.gpu,
    tp: s.tp,
    numInstances: instances,
    maxNumSeqs: s.maxNumSeqs,
    maxNumBatchedTokens: s.maxNumBatchedTokens,
    rate: p.rate,
    numRequests: p.requests,
    // The detectors add the steady completion ratio: whether the point keeps up with the load.
    detectors: "all",
    ...goodputTargets(q.slos),
  };
  if (s.pd.kind === "split") {
    input.prefillInstances = s.pd.prefill * p.units;
    input.decodeInstances = s.pd.decode * p.units;
    input.pdDecider = "always";
  }
  return input;
}

/** Evaluations by key, from and to evaluations.jsonl; runs what is missing on the pool. */
export class Evaluator {
  private readonly done = new Map<string, Evaluation>();
  private readonly log: JsonlLog<Evaluation> | null;
  private pool: RunExecutor | null;
  private ownPool: SweepPool | null = null;
  /** Simulations run by this evaluator, and evaluations taken from the output directory. */
  simulations = 0;
  reused = 0;

  constructor(
    private readonly q: PlanQuestion,
    private readonly rt: PlanRuntime,
  ) {
    this.pool = rt.pool ?? null;
    if (rt.outDir !== null) fs.mkdirSync(rt.outDir, { recursive: true });
    this.log = rt.outDir === null ? null : new JsonlLog(path.join(rt.outDir, "evaluations.jsonl"), isEvaluation);
    for (const e of this.log?.load() ?? []) this.done.set(e.key, e);
  }

  key(p: Point): string {
    return canonicalHash({ input: pointInput(this.q, p), seeds: this.q.seeds, timeoutS: this.q.timeoutS });
  }

  /** Evaluates the points (each over every seed) and returns them in order. */
  async evaluate(points: readonly Point[]): Promise<Evaluation[]> {
    const keys = points.map((p) => this.key(p));
    const cells: CellSpec[] = [];
    const byLabel = new Map<string, Point>();
    points.forEach((p, i) => {
      const k = keys[i]!;
      if (this.done.has(k)) {
        if (!byLabel.has(k)) this.reused++;
        return;
      }
      if (byLabel.has(k)) return;
      byLabel.set(k, p);
      cells.push({ label: k, input: pointInput(this.q, p) });
    });
    if (cells.length > 0) await this.run(cells, byLabel);
    return keys.map((k) => this.done.get(k)!);
  }

  private async run(cells: CellSpec[], byLabel: Map<string, Point>): Promise<void> {
    const partial = new Map<string, SeedOutcome[]>();
    await runCells(cells, {
      name: "plan",
      seeds: this.q.seeds,
      timeoutS: this.q.timeoutS,
      metrics: ["completed"],
      checks: { conservation: false },
      pool: this.executor(),
      progress: "none",
      stderr: this.rt.say,
      onRecord: (rec, config) => {
        const metrics: Record<string, number | null> = {};
        for (const m of RECORDED) {
          const v = rec.metrics === null ? null : extractMetric(m, rec.metrics, "");
          metrics[m] = v !== null && Number.isFinite(v) ? v : null;
        }
        const list = partial.get(config.label) ?? [];
        list.push({ seed: rec.seed, status: rec.status, error: rec.error, metrics });
        partial.set(config.label, list);
        this.simulations++;
        if (list.length === this.q.seeds.length) this.finish(config.label, byLabel.get(config.label)!, list);
      },
    });
  }

  private finish(key: string, p: Point, runs: SeedOutcome[]): void {
    const order = new Map(this.q.seeds.map((s, i) => [s, i]));
    runs.sort((a, b) => order.get(a.seed)! - order.get(b.seed)!);
    const e: Evaluation = {
      v: 1,
      key,
      shape: p.shape.id,
      units: p.units,
      rate: p.rate,
      requests: p.requests,
      gpus: gpusOf(p.shape, p.units),
      seeds: runs,
    };
    this.done.set(key, e);
    this.log?.append(e);
  }

  private executor(): RunExecutor {
    if (this.pool === null) {
      this.ownPool = new SweepPool(this.rt.jobs);
      this.pool = this.ownPool;
    }
    return this.pool;
  }

  async close(): Promise<void> {
    this.log?.close();
    await this.ownPool?.close();
  }
}
