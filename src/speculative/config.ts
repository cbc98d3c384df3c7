// The speculative-decoding configuration (docs/speculative.md "Configuration"): vLLM's
// `--speculative-config` keys, plus the acceptance the simulator draws from instead of running a
// proposer. Parsed and checked before the run; every refusal is one line naming the key.

import { UserError } from "../util/errors.js";

export const SPEC_METHODS = ["ngram", "eagle", "eagle3", "mtp", "draft_model"] as const;
export type SpecMethod = (typeof SPEC_METHODS)[number];

/** A validated speculative-decoding setup. */
export interface SpeculativeConfig {
  method: SpecMethod;
  /** num_speculative_tokens: proposals per verification step (k ≥ 1). */
  k: number;
  /** The draft model or head ("" for ngram and mtp). */
  model: string;
  /** P(proposal i accepted | proposals before it accepted), i = 0 .. k-1. */
  rates: readonly number[];
  /** Acceptance overrides by SLO class ("" is written "default"). */
  bySloClass: ReadonlyMap<string, readonly number[]>;
  /** Acceptance overrides by tenant ID (what a workload client stamps on its requests). */
  byTenant: ReadonlyMap<string, readonly number[]>;
  /**
   * disable_by_batch_size: no speculation in a step whose running batch has at least this many requests (0 = never
   * off).
   */
  disableByBatchSize: number;
  /** draft_tensor_parallel_size: the draft model's TP (0 = the target's). */
  draftTp: number;
}

/** vLLM keys accepted and checked but without effect here (docs/speculative.md). */
const INERT_KEYS = new Set(["prompt_lookup_max", "prompt_lookup_min", "quantization", "revision"]);
const KNOWN_KEYS = new Set([
  "method",
  "num_speculative_tokens",
  "model",
  "acceptance_rates",
  "acceptance_rate",
  "acceptance_by_slo_class",
  "acceptance_by_tenant",
  "disable_by_batch_size",
  "draft_tensor_parallel_size",
  ...INERT_KEYS,
]);

const SOURCE = "--speculative-config";

function fail(msg: string): never {
  throw new UserError(`${SOURCE}: ${msg}`);
}

/** Parses the JSON text of `--speculative-config` (or the same keys from a policy bundle, re-serialized). */
export function parseSpeculativeConfig(text: string): SpeculativeConfig {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    fail(`not valid JSON (${(e as Error).message})`);
  }
  return decodeSpeculativeConfig(raw);
}

/** Validates the keys of a speculative config object. */
export function decodeSpeculativeConfig(raw: unknown): SpeculativeConfig {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) fail("must be a JSON object");
  const o = raw as Record<string, unknown>;
  for (const key of Object.keys(o)) if (!KNOWN_KEYS.has(key)) fail(`unknown key "${key}"`);
  const model = optionalString(o, "model");
  const method = methodOf(o["method"], model);
  if ((method === "draft_model" || method === "eagle" || method === "eagle3") && model === "") {
    fail(`method "${method}" needs "model" (the draft model or head)`);
  }
  const k = speculativeTokens(o["num_speculative_tokens"]);
  checkInertKeys(o);
  const rates = acceptanceOf(o, k);
  const disableByBatchSize = batchSizeCutoff(o["disable_by_batch_size"]);
  return {
    method,
    k,
    model,
    rates,
    bySloClass: overrides(o, "acceptance_by_slo_class", k),
    byTenant: overrides(o, "acceptance_by_tenant", k),
    disableByBatchSize,
    draftTp: typeof o["draft_tensor_parallel_size"] === "number" ? o["draft_tensor_parallel_size"] : 0,
  };
}

/** num_speculative_tokens: required, an integer in [1, 64]. */
function speculativeTokens(k: unknown): number {
  if (k === undefined) fail(`"num_speculative_tokens" is required`);
  if (typeof k !== "number" || !Number.isInteger(k) || k < 1)
    fail(`"num_speculative_tokens" must be an integer >= 1, got ${JSON.stringify(k)}`);
  if (k > 64) fail(`"num_speculative_tokens" must be <= 64, got ${k}`);
  return k;
}

/** disable_by_batch_size: an integer >= 2 when given; 0 (never disable) otherwise. */
function batchSizeCutoff(dbs: unknown): number {
  if (dbs !== undefined && (typeof dbs !== "number" || !Number.isInteger(dbs) || dbs < 2)) {
    fail(`"disable_by_batch_size" must be an integer >= 2, got ${JSON.stringify(dbs)}`);
  }
  return typeof dbs === "number" ? dbs : 0;
}

function optionalString(o: Record<string, unknown>, key: string): string {
  const v = o[key];
  if (v === undefined || v === null) return "";
  if (typeof v !== "string") fail(`"${key}" must be a string, got ${JSON.stringify(v)}`);
  return v;
}

/** The method; without one, inferred from the model name as vLLM does. */
function methodOf(v: unknown, model: string): SpecMethod {
  if (v === undefined || v === null) {
    if (model === "") fail(`"method" is required (one of ${SPEC_METHODS.join(", ")}) when no "model" is given`);
    const m = model.toLowerCase();
    return m.includes("eagle3") ? "eagle3" : m.includes("eagle") ? "eagle" : "draft_model";
  }
  if (typeof v !== "string" || !(SPEC_METHODS as readonly string[]).includes(v)) {
    fail(`unknown method ${JSON.stringify(v)}; valid: ${SPEC_METHODS.join(", ")}`);
  }
  return v as SpecMethod;
}

function checkInertKeys(o: Record<string, unknown>): void {
  for (const key of ["prompt_lookup_max", "prompt_lookup_min", "draft_tensor_parallel_size"]) {
    const v = o[key];
    if (v !== undefined && (typeof v !== "number" || !Number.isInteger(v) || v < 1)) {
      fail(`"${key}" must be an integer >= 1, got ${JSON.stringify(v)}`);
    }
  }
  const lo = o["prompt_lookup_min"];
  const hi = o["prompt_lookup_max"];
  if (typeof lo === "number" && typeof hi === "number" && lo > hi)
    fail(`"prompt_lookup_min" (${lo}) must be <= "prompt_lookup_max" (${hi})`);
}

/** The run-wide acceptance: exactly one of acceptance_rates and acceptance_rate. */
function acceptanceOf(o: Record<string, unknown>, k: number): number[] {
  const list = o["acceptance_rates"];
  const one = o["acceptance_rate"];
  if (list !== undefined && one !== undefined) fail(`give "acceptance_rates" or "acceptance_rate", not both`);
  if (list === undefined && one === undefined) {
    fail(
      `"acceptance_rates" (one per position) or "acceptance_rate" is required: the simulator draws acceptance, it runs no proposer`,
    );
  }
  return rateList(list !== undefined ? list : one, list !== undefined ? "acceptance_rates" : "acceptance_rate", k);
}

/** A rate (the same at every position) or a list of k rates, each a finite number in [0, 1]. */
function rateList(v: unknown, key: string, k: number): number[] {
  const check = (x: unknown, at: string): number => {
    if (typeof x !== "number" || !Number.isFinite(x) || x < 0 || x > 1)
      fail(`${at} must be a number in [0, 1], got ${JSON.stringify(x)}`);
    return x;
  };
  if (Array.isArray(v)) {
    if (v.length !== k) fail(`"${key}" must list one rate per speculative token (${k}), got ${v.length}`);
    return v.map((x, i) => check(x, `"${key}"[${i}]`));
  }
  const a = check(v, `"${key}"`);
  return new Array<number>(k).fill(a);
}

function overrides(o: Record<string, unknown>, key: string, k: number): Map<string, number[]> {
  const out = new Map<string, number[]>();
  const v = o[key];
  if (v === undefined) return out;
  if (v === null || typeof v !== "object" || Array.isArray(v))
    fail(`"${key}" must be an object of name: rate or [rates]`);
  for (const [name, rates] of Object.entries(v as Record<string, unknown>))
    out.set(name, rateList(rates, `${key}.${name}`, k));
  return out;
}
