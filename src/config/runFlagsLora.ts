// The LoRA group's routing flag (docs/lora.md "Routing"); the adapters' own flags are the LoRA
// feature's (src/features/lora/lora.ts).
import type { FlagSpec } from "./flagDef.js";

const lora = (key: FlagSpec["key"], flag: string, type: FlagSpec["type"], help: string, shown?: string): FlagSpec => ({
  key,
  flag,
  type,
  group: "cluster",
  help,
  ...(shown !== undefined ? { shown } : {}),
});

export const LORA_FLAGS: FlagSpec[] = [
  lora(
    "loraScorerWeight",
    "--lora-scorer-weight",
    "float",
    "weighted routing: adds lora-affinity with this weight (> 0) to the scorer profile",
    "none: lora-affinity not added",
  ),
];
