// The run options of the LoRA control plane (docs/lora.md "Configuration"). Each applies only when
// given; without --lora-config no adapter is declared and the subsystem is off.
import { z } from "zod";
import { anyNumber } from "../util/policyRegistry.js";

export const loraOptionsShape = {
  loraConfig: z.string().default(""),
  loraAdapterCapacity: z.number().int().optional(),
  loraLoadBaseLatencyUs: anyNumber.optional(),
  loraLoadBandwidthBytesUs: anyNumber.optional(),
  loraFootprintBytesPerRank: anyNumber.optional(),
  /** Adds `lora-affinity:<weight>` to the weighted-routing profile. */
  loraScorerWeight: anyNumber.optional(),
};
