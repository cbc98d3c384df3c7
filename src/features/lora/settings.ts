// LoRA's settings (docs/lora.md "Configuration"): the --lora-config file, the defaults file's lora
// block and the flags, resolved before the latency backend, which sets the adapters' GPU memory
// aside before it derives the KV capacity.

import { decodeLoraBlock, loadLoraFile, type LoraBlock } from "../../lora/config.js";
import { reservedBytes, resolveLora, type LoraFlags, type ResolvedLora } from "../../lora/resolve.js";
import type { FeatureContext } from "../feature.js";

/** LoRA's options: the file and the cost flags (each applies only when given). */
export interface LoraOptions {
  loraConfig: string;
  loraAdapterCapacity?: number | undefined;
  loraLoadBaseLatencyUs?: number | undefined;
  loraLoadBandwidthBytesUs?: number | undefined;
  loraFootprintBytesPerRank?: number | undefined;
}

/** Declared adapters (workload references are checked against them), the configuration when active, its memory. */
export interface LoraSettings extends ResolvedLora {
  registry: NonNullable<ResolvedLora["registry"]>;
  /** Bytes set aside per instance (0 when inert or --total-kv-blocks is given). */
  reservedBytes: number;
}

/** The given LoRA flags. */
export function loraFlags(p: LoraOptions): LoraFlags {
  const f: LoraFlags = {};
  if (p.loraAdapterCapacity !== undefined) f.adapterCapacity = p.loraAdapterCapacity;
  if (p.loraLoadBaseLatencyUs !== undefined) f.loadBaseLatencyUs = p.loraLoadBaseLatencyUs;
  if (p.loraLoadBandwidthBytesUs !== undefined) f.loadBandwidthBytesUs = p.loraLoadBandwidthBytesUs;
  if (p.loraFootprintBytesPerRank !== undefined) f.footprintBytesPerRank = p.loraFootprintBytesPerRank;
  return f;
}

/** Resolves the LoRA configuration; reads no file unless --lora-config is given. Null: no adapter is declared. */
export function loraSettings(p: LoraOptions, { explicit, log, defaultsFile }: FeatureContext): LoraSettings | null {
  const flags = loraFlags(p);
  if (p.loraConfig === "") {
    resolveLora({ file: null, fileName: "", defaults: null, defaultsName: "", flags }, log);
    return null;
  }
  const file = loadLoraFile(p.loraConfig);
  const block = defaultsFile.block("lora");
  const defaults: LoraBlock | null =
    block !== undefined ? decodeLoraBlock(block, `defaults file ${defaultsFile.path}`) : null;
  const sources = { file, fileName: p.loraConfig, defaults, defaultsName: defaultsFile.path, flags };
  const { registry, active } = resolveLora(sources, log);
  if (registry === null) return null;
  if (active === null) return { registry, active, reservedBytes: 0 };
  const bytes = reservedBytes(active);
  if (explicit.has("totalKvBlocks")) {
    log.warn(
      `--total-kv-blocks is used as given: no KV memory is set aside for the ${active.capacity} LoRA adapter slots (${bytes} bytes)`,
    );
    return { registry, active, reservedBytes: 0 };
  }
  return { registry, active, reservedBytes: bytes };
}
