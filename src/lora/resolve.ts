// Resolution of the LoRA configuration (docs/lora.md "Configuration"): the --lora-config file, then
// the defaults file's `lora` block for unset cost coefficients and tiers, then the flags given.

import { UserError } from "../util/errors.js";
import type { Logger } from "../util/log.js";
import type { AdapterSpec, LoraBlock, LoraTier } from "./config.js";

/** A resolved, active LoRA configuration, shared by every instance. */
export interface LoraConfig {
  capacity: number;
  loadBaseLatencyUs: number;
  loadBandwidthBytesUs: number;
  footprintBytesPerRank: number;
  /** Sorted by rank; empty = no step overhead. */
  tiers: readonly LoraTier[];
  adapters: ReadonlyMap<string, AdapterSpec>;
  /** Largest declared rank. */
  maxRank: number;
}

/** The flags of the LoRA group that were given (absent = not given). */
export interface LoraFlags {
  adapterCapacity?: number;
  loadBaseLatencyUs?: number;
  loadBandwidthBytesUs?: number;
  footprintBytesPerRank?: number;
}

export interface ResolvedLora {
  /** The declared adapters (workload references are checked against it); null = none declared. */
  registry: ReadonlyMap<string, AdapterSpec> | null;
  /** The configuration when adapters are declared and a capacity is set; null = inert. */
  active: LoraConfig | null;
}

/** Checks the flags that were given: they must be valid even when nothing else is configured. */
export function checkLoraFlags(f: LoraFlags): void {
  const c = f.adapterCapacity;
  if (c !== undefined && !(Number.isInteger(c) && c > 0))
    throw new UserError(`--lora-adapter-capacity must be > 0, got ${c}`);
  const b = f.loadBaseLatencyUs;
  if (b !== undefined && !(Number.isFinite(b) && b >= 0))
    throw new UserError(`--lora-load-base-latency-us must be a finite value >= 0, got ${b}`);
  const w = f.loadBandwidthBytesUs;
  if (w !== undefined && !(Number.isFinite(w) && w > 0))
    throw new UserError(`--lora-load-bandwidth-bytes-us must be a finite value > 0, got ${w}`);
  const p = f.footprintBytesPerRank;
  if (p !== undefined && !(Number.isFinite(p) && p > 0))
    throw new UserError(`--lora-footprint-bytes-per-rank must be a finite value > 0, got ${p}`);
}

/** The per-adapter and per-tier checks of one source, naming the key. */
function checkBlock(b: LoraBlock, where: string): void {
  const seen = new Set<string>();
  (b.adapters ?? []).forEach((a, i) => {
    const at = `lora.adapters[${i}]`;
    if (a.id === "") throw new UserError(`${where}: ${at}.id must be non-empty`);
    if (seen.has(a.id)) throw new UserError(`${where}: ${at}.id: duplicate adapter ID ${JSON.stringify(a.id)}`);
    seen.add(a.id);
    if (!(a.rank > 0 && Number.isInteger(a.rank)))
      throw new UserError(`${where}: ${at}.rank must be an integer > 0, got ${a.rank}`);
  });
  for (const t of b.tiers ?? []) {
    const at = `lora.step_overhead_tiers.${t.rank}`;
    if (!(t.rank > 0)) throw new UserError(`${where}: ${at}: tier rank must be > 0, got ${t.rank}`);
    if (!(t.k6 >= 0)) throw new UserError(`${where}: ${at}.k6 must be >= 0, got ${t.k6}`);
    if (!(t.k7 > 0)) throw new UserError(`${where}: ${at}.k7 must be > 0, got ${t.k7}`);
  }
  const c = b.adapterCapacity;
  if (c !== undefined && !(c > 0)) throw new UserError(`${where}: lora.adapter_capacity must be > 0, got ${c}`);
  const base = b.loadBaseLatencyUs;
  if (base !== undefined && !(base >= 0))
    throw new UserError(`${where}: lora.load_base_latency_us must be >= 0, got ${base}`);
  const bw = b.loadBandwidthBytesUs;
  if (bw !== undefined && !(bw > 0))
    throw new UserError(`${where}: lora.load_bandwidth_bytes_us must be > 0, got ${bw}`);
  const fp = b.footprintBytesPerRank;
  if (fp !== undefined && !(fp > 0))
    throw new UserError(`${where}: lora.footprint_bytes_per_rank must be > 0, got ${fp}`);
}

export interface LoraSources {
  /** The --lora-config block (null: no file). */
  file: LoraBlock | null;
  fileName: string;
  /** The defaults file's `lora` block (null: none). */
  defaults: LoraBlock | null;
  defaultsName: string;
  flags: LoraFlags;
}

/**
 * Resolves the sources in order. Adapters and the capacity come from the file and flags only; the
 * defaults file fills the cost coefficients and tiers the file leaves unset.
 */
export function resolveLora(s: LoraSources, log: Logger): ResolvedLora {
  checkLoraFlags(s.flags);
  const file = s.file ?? {};
  if (s.file !== null) checkBlock(file, `--lora-config ${s.fileName}`);
  const defaults = s.defaults ?? {};
  if (s.defaults !== null) checkBlock({ ...defaults, adapters: [] }, `defaults file ${s.defaultsName}`);
  const adapters = file.adapters ?? [];
  const given = Object.keys(s.flags).map((k) => k.replace(/[A-Z]/g, (m) => "-" + m.toLowerCase()));
  if (adapters.length === 0) {
    if (given.length > 0) log.warn(`--lora-${given[0]} has no effect: no LoRA adapters are declared (--lora-config)`);
    return { registry: null, active: null };
  }
  const registry = new Map(adapters.map((a) => [a.id, a]));
  const capacity = s.flags.adapterCapacity ?? file.adapterCapacity;
  if (capacity === undefined) {
    log.warn(
      "LoRA adapters are declared but no adapter capacity is set (lora.adapter_capacity, --lora-adapter-capacity): LoRA is off",
    );
    return { registry, active: null };
  }
  const pick = (flag: number | undefined, f: number | undefined, d: number | undefined, key: string): number => {
    const v = flag ?? f ?? d;
    if (v === undefined) {
      throw new UserError(
        `lora.${key} is not set: give it in --lora-config, the defaults file's lora block or its flag`,
      );
    }
    return v;
  };
  return {
    registry,
    active: {
      capacity,
      loadBaseLatencyUs: pick(
        s.flags.loadBaseLatencyUs,
        file.loadBaseLatencyUs,
        defaults.loadBaseLatencyUs,
        "load_base_latency_us",
      ),
      loadBandwidthBytesUs: pick(
        s.flags.loadBandwidthBytesUs,
        file.loadBandwidthBytesUs,
        defaults.loadBandwidthBytesUs,
        "load_bandwidth_bytes_us",
      ),
      footprintBytesPerRank: pick(
        s.flags.footprintBytesPerRank,
        file.footprintBytesPerRank,
        defaults.footprintBytesPerRank,
        "footprint_bytes_per_rank",
      ),
      tiers: file.tiers ?? defaults.tiers ?? [],
      adapters: registry,
      maxRank: Math.max(...adapters.map((a) => a.rank)),
    },
  };
}

/** Bytes of GPU memory kept for the resident adapters: capacity × footprint per rank × largest rank. */
export function reservedBytes(c: LoraConfig): number {
  return c.capacity * c.footprintBytesPerRank * c.maxRank;
}

/** A workload's use of an adapter: the first place naming it, for the error message. */
export interface AdapterRef {
  adapter: string;
  /** The client's `model` ("" = none). */
  model: string;
  /** `client[3]`, `cohort[0]`, `trace request 17`. */
  where: string;
}

/** Fails on a reference to an undeclared adapter or to an adapter of another base model. */
export function checkAdapterRefs(refs: readonly AdapterRef[], registry: ReadonlyMap<string, AdapterSpec> | null): void {
  for (const r of refs) {
    if (registry === null) {
      throw new UserError(
        `${r.where}: adapter ${JSON.stringify(r.adapter)} is used but no LoRA adapters are declared (--lora-config)`,
      );
    }
    const a = registry.get(r.adapter);
    if (a === undefined) {
      const known = [...registry.keys()].sort().join(", ");
      throw new UserError(`${r.where}: unknown adapter ${JSON.stringify(r.adapter)} (declared: ${known})`);
    }
    if (a.baseModel !== "" && r.model !== "" && r.model !== a.baseModel) {
      throw new UserError(
        `${r.where}: model ${JSON.stringify(r.model)} differs from the base_model ${JSON.stringify(a.baseModel)} of adapter ${JSON.stringify(a.id)}`,
      );
    }
  }
}
