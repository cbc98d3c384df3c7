import { UserError } from "../util/errors.js";
import { parseGoFloat } from "../util/parse.js";
import type { SimulationMetrics } from "./collect.js";

export const FITNESS_KEYS = [
  "throughput",
  "tokens_per_sec",
  "p99_ttft",
  "p50_ttft",
  "mean_ttft",
  "p99_e2e",
  "p50_e2e",
  "mean_e2e",
] as const;

/**
 * Parses `key:value,...` (docs/behavior.md "Output, in order", item 2). Later repeats overwrite
 * earlier ones.
 */
export function parseFitnessWeights(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const raw of text.split(",")) {
    const piece = raw.trim();
    const colon = piece.indexOf(":");
    if (colon < 0)
      throw new UserError(`Invalid fitness weights: invalid fitness weight "${piece}": expected key:value`);
    const key = piece.slice(0, colon).trim();
    const valText = piece.slice(colon + 1).trim();
    const v = parseGoFloat(valText);
    if (v === null) {
      throw new UserError(
        `Invalid fitness weights: invalid value for "${key}": ${JSON.stringify(valText)} is not a number`,
      );
    }
    if (!Number.isFinite(v) || v < 0) {
      throw new UserError(
        `Invalid fitness weights: weight for "${key}" must be a finite non-negative number, got ${valText}`,
      );
    }
    out.set(key, v);
  }
  for (const k of [...out.keys()].sort()) {
    if (!(FITNESS_KEYS as readonly string[]).includes(k)) {
      throw new UserError(
        `Fitness evaluation failed: unknown fitness metric key "${k}"; valid keys: ${FITNESS_KEYS.join(", ")}`,
      );
    }
  }
  return out;
}

export interface FitnessResult {
  score: number;
  components: [string, number][];
}

/**
 * Weighted sum of normalized components, keys in sorted order (docs/behavior.md "Output, in order",
 * item 2).
 */
export function evaluateFitness(m: SimulationMetrics, weights: ReadonlyMap<string, number>): FitnessResult {
  const f = m.fitnessInputs;
  const dur = f.simEnded / 1e6;
  const raw = (key: string): number => {
    switch (key) {
      case "throughput":
        return f.simEnded > 0 && f.completed > 0 ? f.completed / dur : 0;
      case "tokens_per_sec":
        return f.simEnded > 0 && f.completed > 0 ? f.outputTokens / dur : 0;
      case "p99_ttft":
        return f.ttft.p99;
      case "p50_ttft":
        return f.ttft.p50;
      case "mean_ttft":
        return f.ttft.mean;
      case "p99_e2e":
        return f.e2e.p99;
      case "p50_e2e":
        return f.e2e.p50;
      default:
        return f.e2e.mean;
    }
  };
  const norm = (key: string, v: number): number =>
    key === "throughput" ? v / (v + 100) : key === "tokens_per_sec" ? v / (v + 10000) : 1 / (1 + v / 1000);
  let score = 0;
  const components: [string, number][] = [];
  for (const key of [...weights.keys()].sort()) {
    const c = norm(key, raw(key));
    score += c * weights.get(key)!;
    components.push([key, c]);
  }
  return { score, components };
}
