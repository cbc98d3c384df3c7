// The LoRA stage of a run (docs/lora.md "Configuration"): the --lora-config file, the defaults
// file's lora block and the flags, resolved before the latency backend (adapters reserve KV memory).

import type { RunOptions } from "../config/runOptions.js";
import { loadDefaultsFile } from "../latency/defaultsFile.js";
import { decodeLoraBlock, loadLoraFile, type LoraBlock } from "../lora/config.js";
import { reservedBytes, resolveLora, type LoraFlags, type ResolvedLora } from "../lora/resolve.js";
import type { Logger } from "../util/log.js";
import { UserError } from "../util/errors.js";
import type { ScorerSpec } from "../cluster/scorers/scorer.js";

/** The given LoRA flags. */
function loraFlags(o: Readonly<RunOptions>): LoraFlags {
  const f: LoraFlags = {};
  if (o.loraAdapterCapacity !== undefined) f.adapterCapacity = o.loraAdapterCapacity;
  if (o.loraLoadBaseLatencyUs !== undefined) f.loadBaseLatencyUs = o.loraLoadBaseLatencyUs;
  if (o.loraLoadBandwidthBytesUs !== undefined) f.loadBandwidthBytesUs = o.loraLoadBandwidthBytesUs;
  if (o.loraFootprintBytesPerRank !== undefined) f.footprintBytesPerRank = o.loraFootprintBytesPerRank;
  return f;
}

/** Resolves the LoRA configuration; reads no file unless --lora-config is given. */
export function resolveLoraStage(
  o: Readonly<RunOptions>,
  explicit: ReadonlySet<string>,
  log: Logger,
): ResolvedLora & { reservedBytes: number } {
  const flags = loraFlags(o);
  if (o.loraConfig === "") {
    const res = resolveLora({ file: null, fileName: "", defaults: null, defaultsName: "", flags }, log);
    return { ...res, reservedBytes: 0 };
  }
  const file = loadLoraFile(o.loraConfig);
  let defaults: LoraBlock | null = null;
  const d = loadDefaultsFile(o.defaultsFilepath);
  if (d.lora !== undefined) defaults = decodeLoraBlock(d.lora, `defaults file ${o.defaultsFilepath}`);
  const res = resolveLora({ file, fileName: o.loraConfig, defaults, defaultsName: o.defaultsFilepath, flags }, log);
  if (res.active === null) return { ...res, reservedBytes: 0 };
  const bytes = reservedBytes(res.active);
  if (explicit.has("totalKvBlocks")) {
    log.warn(
      `--total-kv-blocks is used as given: no KV memory is set aside for the ${res.active.capacity} LoRA adapter slots (${bytes} bytes)`,
    );
    return { ...res, reservedBytes: 0 };
  }
  return { ...res, reservedBytes: bytes };
}

/**
 * `--lora-scorer-weight W` (docs/lora.md "Routing"): appends `lora-affinity:W` to the weighted
 * profile in effect; a warning with any other routing policy.
 */
export function withLoraScorer(
  o: Readonly<RunOptions>,
  specs: readonly ScorerSpec[],
  log: Logger,
): readonly ScorerSpec[] {
  const w = o.loraScorerWeight;
  if (w === undefined) return specs;
  if (!(Number.isFinite(w) && w > 0)) throw new UserError(`--lora-scorer-weight must be a finite value > 0, got ${w}`);
  if (o.routingPolicy !== "weighted") {
    log.warn(
      `--lora-scorer-weight has no effect when routing policy is "${o.routingPolicy}" (only applies to 'weighted')`,
    );
    return specs;
  }
  if (specs.some((s) => s.name === "lora-affinity")) {
    throw new UserError(
      "--lora-scorer-weight: lora-affinity is already in the routing scorer profile; give its weight there instead",
    );
  }
  return [...specs, { name: "lora-affinity", weight: w }];
}
