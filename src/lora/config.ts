// The LoRA configuration (docs/lora.md "Configuration"): the strict `lora:` block of --lora-config
// and of the defaults file, and the checks of every value. Resolution is in resolve.ts.

import { parseDocument } from "yaml";
import { UserError } from "../util/errors.js";
import { readInputFile, InputFileError, SPEC_FILE_LIMIT } from "../util/inputFile.js";

/** Per-step overhead of one rank tier: factor = 1 + (k6 / k7) × distinct adapters. */
export interface LoraTier {
  rank: number;
  k6: number;
  k7: number;
}

export interface AdapterSpec {
  id: string;
  rank: number;
  /** The model the adapter was trained on ("" = any). */
  baseModel: string;
}

/** A `lora:` block as written: absent keys stay undefined (the next source may fill them). */
export interface LoraBlock {
  adapterCapacity?: number;
  loadBaseLatencyUs?: number;
  loadBandwidthBytesUs?: number;
  footprintBytesPerRank?: number;
  /** Sorted by rank. */
  tiers?: LoraTier[];
  adapters?: AdapterSpec[];
}

const BLOCK_KEYS = [
  "adapter_capacity",
  "load_base_latency_us",
  "load_bandwidth_bytes_us",
  "footprint_bytes_per_rank",
  "step_overhead_tiers",
  "adapters",
] as const;
const ADAPTER_KEYS = ["id", "rank", "base_model"] as const;
const TIER_KEYS = ["k6", "k7"] as const;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Fails on the first key of `o` not in `known`, naming it with its path. */
function checkKeys(o: Record<string, unknown>, known: readonly string[], where: string, path: string): void {
  for (const k of Object.keys(o)) {
    if (!known.includes(k)) throw new UserError(`${where}: ${path}: unknown field ${JSON.stringify(k)}`);
  }
}

function num(v: unknown, where: string, path: string): number {
  if (typeof v !== "number" || !Number.isFinite(v))
    throw new UserError(`${where}: ${path} must be a finite number, got ${show(v)}`);
  return v;
}

function show(v: unknown): string {
  return typeof v === "string"
    ? JSON.stringify(v)
    : v === null
      ? "null"
      : typeof v === "object"
        ? "a collection"
        : String(v);
}

/**
 * Decodes a `lora:` block (the value under the key), failing on unknown keys and wrong types;
 * `where` names the file and `prefix` the block's path in it (`lora`).
 */
export function decodeLoraBlock(value: unknown, where: string, prefix = "lora"): LoraBlock {
  if (value === null || value === undefined) return {};
  if (!isRecord(value)) throw new UserError(`${where}: ${prefix} must be a mapping, got ${show(value)}`);
  checkKeys(value, BLOCK_KEYS, where, prefix);
  const out: LoraBlock = {};
  const p = (k: string): string => `${prefix}.${k}`;
  if (value.adapter_capacity !== undefined) {
    const c = num(value.adapter_capacity, where, p("adapter_capacity"));
    if (!Number.isInteger(c)) throw new UserError(`${where}: ${p("adapter_capacity")} must be an integer, got ${c}`);
    out.adapterCapacity = c;
  }
  if (value.load_base_latency_us !== undefined)
    out.loadBaseLatencyUs = num(value.load_base_latency_us, where, p("load_base_latency_us"));
  if (value.load_bandwidth_bytes_us !== undefined) {
    out.loadBandwidthBytesUs = num(value.load_bandwidth_bytes_us, where, p("load_bandwidth_bytes_us"));
  }
  if (value.footprint_bytes_per_rank !== undefined) {
    out.footprintBytesPerRank = num(value.footprint_bytes_per_rank, where, p("footprint_bytes_per_rank"));
  }
  if (value.step_overhead_tiers !== undefined)
    out.tiers = decodeTiers(value.step_overhead_tiers, where, p("step_overhead_tiers"));
  if (value.adapters !== undefined) out.adapters = decodeAdapters(value.adapters, where, p("adapters"));
  return out;
}

function decodeTiers(v: unknown, where: string, path: string): LoraTier[] {
  if (v === null) return [];
  if (!isRecord(v)) throw new UserError(`${where}: ${path} must be a mapping rank → {k6, k7}, got ${show(v)}`);
  const tiers: LoraTier[] = [];
  for (const [key, t] of Object.entries(v)) {
    const at = `${path}.${key}`;
    const rank = Number(key);
    if (!Number.isInteger(rank))
      throw new UserError(`${where}: ${at}: tier rank must be an integer, got ${JSON.stringify(key)}`);
    if (!isRecord(t)) throw new UserError(`${where}: ${at} must be a mapping {k6, k7}, got ${show(t)}`);
    checkKeys(t, TIER_KEYS, where, at);
    if (t.k6 === undefined || t.k7 === undefined) throw new UserError(`${where}: ${at} needs both k6 and k7`);
    tiers.push({ rank, k6: num(t.k6, where, `${at}.k6`), k7: num(t.k7, where, `${at}.k7`) });
  }
  return tiers.sort((a, b) => a.rank - b.rank);
}

function decodeAdapters(v: unknown, where: string, path: string): AdapterSpec[] {
  if (v === null) return [];
  if (!Array.isArray(v)) throw new UserError(`${where}: ${path} must be a list, got ${show(v)}`);
  return v.map((a: unknown, i) => {
    const at = `${path}[${i}]`;
    if (!isRecord(a)) throw new UserError(`${where}: ${at} must be a mapping {id, rank, base_model}, got ${show(a)}`);
    checkKeys(a, ADAPTER_KEYS, where, at);
    if (a.id !== undefined && typeof a.id !== "string")
      throw new UserError(`${where}: ${at}.id must be a string, got ${show(a.id)}`);
    if (a.base_model !== undefined && typeof a.base_model !== "string") {
      throw new UserError(`${where}: ${at}.base_model must be a string, got ${show(a.base_model)}`);
    }
    const rank = a.rank === undefined ? 0 : num(a.rank, where, `${at}.rank`);
    return { id: a.id ?? "", rank, baseModel: a.base_model ?? "" };
  });
}

/** Reads --lora-config: a YAML file with exactly one top-level key, `lora`. */
export function loadLoraFile(file: string): LoraBlock {
  const where = `--lora-config ${file}`;
  let text: string;
  try {
    text = readInputFile(file, SPEC_FILE_LIMIT);
  } catch (e) {
    if (e instanceof InputFileError) throw new UserError(`${where}: ${e.reason}`);
    throw e;
  }
  const doc = parseDocument(text, { uniqueKeys: true, logLevel: "error", prettyErrors: false });
  if (doc.errors.length > 0) throw new UserError(`${where}: invalid YAML: ${doc.errors[0]!.message.split("\n")[0]}`);
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: 100 });
  } catch (e) {
    throw new UserError(`${where}: invalid YAML: ${(e as Error).message.split("\n")[0]}`);
  }
  if (!isRecord(value) || !("lora" in value)) throw new UserError(`${where}: the file needs a top-level lora: block`);
  checkKeys(value, ["lora"], where, "(top level)");
  return decodeLoraBlock(value.lora, where);
}
