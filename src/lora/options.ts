// The LoRA group's routing option (docs/lora.md "Routing"); the adapters' own options belong to the
// LoRA feature (src/features/lora/).
import { anyNumber } from "../util/policyRegistry.js";

export const loraOptionsShape = {
  /** Adds `lora-affinity:<weight>` to the weighted-routing profile. */
  loraScorerWeight: anyNumber.optional(),
};
