// LoRA as a cluster extension (docs/lora.md): every instance, startup and autoscaled ones alike,
// gets its own adapter slots from the run's LoRA configuration.

import type { ClusterExtension, ExtensionDescriptor } from "../cluster/extension.js";
import { InstanceLora } from "../lora/instanceLora.js";
import type { SimConfig } from "./simConfig.js";

export const LORA_EXTENSION: ExtensionDescriptor = {
  name: "lora",
  ranks: null,
  capabilities: ["instances"],
  // Sub-requests carry no adapter.
  incompatible: [
    { with: "pd", message: "--lora-config cannot be combined with --prefill-instances/--decode-instances" },
  ],
};

/** The run's extensions with a part in every instance: LoRA's, when the run has adapters. */
export function instanceExtensions(cfg: SimConfig): ClusterExtension[] {
  const lora = cfg.lora;
  if (lora === undefined) return [];
  const extension: ClusterExtension = {
    descriptor: LORA_EXTENSION,
    attach: () => undefined,
    instanceConfig: () => ({ lora: new InstanceLora(lora) }),
  };
  return [extension];
}
