// Workload spec → YAML (docs/behavior.md "Traces, convert and compose"): schema field order; empty
// optional keys omitted (absent sub-objects; zero scalars, empty lists and maps among the omittable
// keys); version, seed, category, aggregate_rate, id, tenant_id, slo_class, rate_fraction and
// streaming always written. Re-loading the text gives an equal spec.

import { Document, isScalar, visit } from "yaml";
import { setOwn } from "./spec/decode.js";
import type { AnySchema } from "./spec/schema.js";
import { DistSchema, WorkloadSpecSchema, type WorkloadSpec } from "./spec/types.js";

const OMIT_WHEN_EMPTY = new Set([
  "cohorts",
  "horizon",
  "num_requests",
  "servegen_data",
  "inference_perf",
  "model",
  "cv",
  "params",
  "file",
  "prefix_group",
  "prefix_length",
  "network",
  "lifecycle",
  "multimodal",
  "reasoning",
  "multi_turn",
]);
/** Distributions that are always written; others (multimodal, reasoning) are omitted when unset. */
const ALWAYS_WRITTEN_DISTS = new Set(["input_distribution", "output_distribution"]);

function isEmpty(v: unknown): boolean {
  if (v === undefined || v === null || v === "" || v === 0 || v === 0n || v === false) return true;
  if (Array.isArray(v)) return v.length === 0;
  if (typeof v === "object") return Object.keys(v).length === 0;
  return false;
}

function isZeroDist(v: unknown): boolean {
  const d = v as { type?: unknown; params?: object; file?: unknown } | undefined;
  return (
    d === undefined ||
    (d.type === "" && (d.params === undefined || Object.keys(d.params).length === 0) && d.file === "")
  );
}

function toPlain(schema: AnySchema, value: unknown): unknown {
  switch (schema.kind) {
    case "optional":
      return value === undefined ? undefined : toPlain(schema.inner, value);
    case "list":
      return (value as unknown[]).map((v) => toPlain(schema.item, v));
    case "record": {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value as Record<string, unknown>)) setOwn(out, k, toPlain(schema.value, v));
      return out;
    }
    case "floatMap":
      return { ...(value as Record<string, number>) };
    case "object": {
      const src = value as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      for (const [key, field] of Object.entries(schema.fields)) {
        const v = src[key];
        // Optional (pointer-like) fields are omitted only when absent: an explicit `cv: 0` or an
        // empty `lifecycle:` must survive a round trip.
        if (v === undefined) continue;
        if (field.kind !== "optional" && OMIT_WHEN_EMPTY.has(key) && isEmpty(v)) continue;
        if (field === DistSchema && !ALWAYS_WRITTEN_DISTS.has(key) && isZeroDist(v)) continue;
        out[key] = toPlain(field, v);
      }
      return out;
    }
    default:
      return value;
  }
}

export function serializeWorkloadSpec(spec: WorkloadSpec): string {
  const doc = new Document(toPlain(WorkloadSpecSchema, spec));
  // A plain `<<` key is a merge key to the loader; a map key that is literally "<<" (possible in
  // distribution params) is written quoted so that it loads back as itself.
  visit(doc, {
    Pair(_, pair) {
      if (isScalar(pair.key) && pair.key.value === "<<") pair.key.type = "QUOTE_DOUBLE";
    },
  });
  return doc.toString({ lineWidth: 0 });
}
