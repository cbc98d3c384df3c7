// A resolved speculation setup (docs/speculative.md): what every speculating instance is built from.

import type { LatencyModel } from "../latency/model.js";
import type { AcceptanceTable } from "./acceptance.js";
import type { SpeculativeConfig } from "./config.js";

export interface SpeculationPlan {
  config: SpeculativeConfig;
  table: AcceptanceTable;
  /** Decoder layers of the target model (EAGLE and MTP heads); 0 when the method needs none. */
  targetLayers: number;
  /** The draft model's latency model, one per instance (draft_model only). */
  draft: (() => LatencyModel) | null;
  /** Master seed: each instance draws acceptance from its own stream of it. */
  seed: bigint;
}
