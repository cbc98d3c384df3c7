// LoRA adapters as a feature of a run (docs/lora.md): the --lora-config file and the cost flags,
// the adapters' GPU memory set aside before the KV capacity is derived, adapter slots in every
// instance, and per-adapter metrics under the cluster block's `adapters` key.

import { z } from "zod";
import { anyNumber } from "../../util/policyRegistry.js";
import { checkAdapterRefs, checkLoraFlags } from "../../lora/resolve.js";
import { adapterMetrics, renderAdapters } from "../../metrics/adapters.js";
import type { Feature, Incompatibility } from "../feature.js";
import { loraFlags, loraSettings, type LoraSettings } from "./settings.js";
import { LoraExtension } from "./extension.js";

const params = z.object({
  loraConfig: z.string().default(""),
  loraAdapterCapacity: z.number().int().optional(),
  loraLoadBaseLatencyUs: anyNumber.optional(),
  loraLoadBandwidthBytesUs: anyNumber.optional(),
  loraFootprintBytesPerRank: anyNumber.optional(),
});

/** Sub-requests of a disaggregated run carry no adapter. */
const NOT_WITH_PD: Incompatibility = {
  with: "pd",
  message: "--lora-config cannot be combined with --prefill-instances/--decode-instances",
};

const FROM_FILES = "from --lora-config, else the defaults file";

const flag = (key: keyof z.infer<typeof params>, name: string, type: "string" | "int" | "float", help: string) => ({
  key,
  flag: name,
  type,
  help,
  group: "cluster" as const,
});

export const lora: Feature<z.infer<typeof params>, LoraSettings> = {
  name: "lora",
  description: "LoRA adapters: resident slots per instance, cold loads, step overhead by rank",
  params,
  flags: [
    flag(
      "loraConfig",
      "--lora-config",
      "string",
      "YAML file with a lora: block: adapters, resident slots per instance, load and step costs",
    ),
    {
      ...flag(
        "loraAdapterCapacity",
        "--lora-adapter-capacity",
        "int",
        "LoRA: resident adapter slots per instance (> 0; replaces lora.adapter_capacity)",
      ),
      shown: "from --lora-config",
    },
    {
      ...flag(
        "loraLoadBaseLatencyUs",
        "--lora-load-base-latency-us",
        "float",
        "LoRA: fixed part of an adapter load, µs (>= 0)",
      ),
      shown: FROM_FILES,
    },
    {
      ...flag(
        "loraLoadBandwidthBytesUs",
        "--lora-load-bandwidth-bytes-us",
        "float",
        "LoRA: adapter load bandwidth, bytes per µs (> 0)",
      ),
      shown: FROM_FILES,
    },
    {
      ...flag(
        "loraFootprintBytesPerRank",
        "--lora-footprint-bytes-per-rank",
        "float",
        "LoRA: adapter bytes per rank (> 0)",
      ),
      shown: FROM_FILES,
    },
  ],
  // Declared adapters without a capacity are inert: they constrain nothing.
  incompatible: (s) => (s.active !== null ? [NOT_WITH_PD] : []),
  metricsKey: "adapters",
  validate: (p) => checkLoraFlags(loraFlags(p)),
  settings: loraSettings,
  reservedBytes: (s) => s.reservedBytes,
  checkWorkload: (s, workload) => checkAdapterRefs(workload.adapterRefs, s?.registry ?? null),
  start(s, { instances }) {
    if (s.active === null) return { extension: null };
    return {
      extension: new LoraExtension(s.active),
      results: ({ users, cluster }) => adapterMetrics(instances, users, cluster.vllm_estimated_duration_s) ?? undefined,
      // Printed when some adapter saw activity (its results are then in the block).
      stdout: ({ cluster }) => (cluster.adapters !== undefined ? renderAdapters(cluster.adapters) : ""),
    };
  },
};
