// v1 → v2 upgrade (docs/behavior.md#w2): versions "", "1" and "1.0" become "2"
// and explicit clients' v1 SLO class names are mapped. Cohorts are not touched.

import type { Logger } from "../../util/log.js";
import type { WorkloadSpec } from "./types.js";

const V1_VERSIONS = new Set(["", "1", "1.0"]);
const V1_CLASS_MAP: Readonly<Record<string, string>> = { realtime: "critical", interactive: "standard" };

/** Mutates `spec`; idempotent (a second call sees version "2"). */
export function upgradeV1ToV2(spec: WorkloadSpec, logger?: Logger): void {
  if (!V1_VERSIONS.has(spec.version)) return;
  spec.version = "2";
  for (const client of spec.clients) {
    const mapped = V1_CLASS_MAP[client.slo_class];
    if (mapped !== undefined) {
      logger?.warn(
        `deprecated v1 SLO class "${client.slo_class}" in client "${client.id}" mapped to "${mapped}"; use v2 class names`,
      );
      client.slo_class = mapped;
    }
  }
}
