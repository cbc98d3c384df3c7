// LoRA's part of every instance (docs/lora.md): startup and autoscaled instances alike get their own
// adapter slots from the run's configuration; the run's per-adapter metrics sum them.

import type { ClusterExtension, ExtensionDescriptor } from "../../cluster/extension.js";
import type { InstanceConfig } from "../../instance/instanceConfig.js";
import { InstanceLora } from "../../lora/instanceLora.js";
import type { LoraConfig } from "../../lora/resolve.js";

export const LORA_EXTENSION: ExtensionDescriptor = { name: "lora", ranks: null, capabilities: ["instances"] };

export class LoraExtension implements ClusterExtension {
  readonly descriptor = LORA_EXTENSION;

  constructor(private readonly config: LoraConfig) {}

  attach(): void {}

  instanceConfig(): Partial<InstanceConfig> {
    return { lora: new InstanceLora(this.config) };
  }
}
