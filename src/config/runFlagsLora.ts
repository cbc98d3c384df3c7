// Flags of the LoRA control plane (docs/lora.md "Configuration"). The cost flags apply only when
// given; absent, the --lora-config file and then the defaults file's lora block decide.
import type { FlagSpec } from "./flagDef.js";

const lora = (key: FlagSpec["key"], flag: string, type: FlagSpec["type"], help: string, shown?: string): FlagSpec => ({
  key,
  flag,
  type,
  group: "cluster",
  help,
  ...(shown !== undefined ? { shown } : {}),
});

const FROM_FILES = "from --lora-config, else the defaults file";

export const LORA_FLAGS: FlagSpec[] = [
  lora(
    "loraConfig",
    "--lora-config",
    "string",
    "YAML file with a lora: block: adapters, resident slots per instance, load and step costs",
  ),
  lora(
    "loraAdapterCapacity",
    "--lora-adapter-capacity",
    "int",
    "LoRA: resident adapter slots per instance (> 0; replaces lora.adapter_capacity)",
    "from --lora-config",
  ),
  lora(
    "loraLoadBaseLatencyUs",
    "--lora-load-base-latency-us",
    "float",
    "LoRA: fixed part of an adapter load, µs (>= 0)",
    FROM_FILES,
  ),
  lora(
    "loraLoadBandwidthBytesUs",
    "--lora-load-bandwidth-bytes-us",
    "float",
    "LoRA: adapter load bandwidth, bytes per µs (> 0)",
    FROM_FILES,
  ),
  lora(
    "loraFootprintBytesPerRank",
    "--lora-footprint-bytes-per-rank",
    "float",
    "LoRA: adapter bytes per rank (> 0)",
    FROM_FILES,
  ),
  lora(
    "loraScorerWeight",
    "--lora-scorer-weight",
    "float",
    "weighted routing: adds lora-affinity with this weight (> 0) to the scorer profile",
    "none: lora-affinity not added",
  ),
];
