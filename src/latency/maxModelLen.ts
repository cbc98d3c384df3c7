// Maximum model length for the analytical backends (docs/latency.md "Max model length"):
// derived from config.json's max_position_embeddings and rope_scaling, then capped so that
// one request of that length fits in the KV cache.

import { formatFixed } from "../util/goFormat.js";
import type { ArchConfig } from "./archConfig.js";

/** 2^63: products at or above it would overflow int64, so scaling is not applied. */
const INT64_LIMIT = 9223372036854775808;

/** Scaling types whose max_position_embeddings already includes the extension. */
const EXCLUDED_ROPE_TYPES = new Set(["su", "longrope", "llama3"]);

/** An integer-valued double as Go's %d prints it (all digits; String() rounds past 2^53). */
const intText = (n: number): string => BigInt(n).toString();

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The rope_scaling type: `type`, or `rope_type` when the first is empty or not a string. */
export function ropeScalingType(scaling: Record<string, unknown>): string {
  const t = typeof scaling["type"] === "string" ? scaling["type"] : "";
  if (t !== "") return t;
  return typeof scaling["rope_type"] === "string" ? scaling["rope_type"] : "";
}

/**
 * max_position_embeddings scaled by rope_scaling when it applies (pure). Not applied: base ≤ 0,
 * a gemma3 model type (its value is pre-scaled), rope_scaling absent or not an object, an
 * excluded type (su, longrope, llama3), a factor that is missing, not a number, ≤ 1 or not
 * finite, or a product that would overflow. Yarn scales original_max_position_embeddings when
 * that is > 0. Result = trunc(base · factor).
 */
export function applyRopeScaling(
  maxPos: number,
  modelType: string,
  ropeScaling: unknown,
): { value: number; applied: boolean } {
  const none = { value: maxPos, applied: false };
  if (maxPos <= 0 || modelType.includes("gemma3") || !isObject(ropeScaling)) return none;
  const type = ropeScalingType(ropeScaling);
  if (EXCLUDED_ROPE_TYPES.has(type)) return none;
  const factor = ropeScaling["factor"];
  if (typeof factor !== "number" || !(factor > 1) || !Number.isFinite(factor)) return none;
  let base = maxPos;
  const orig = ropeScaling["original_max_position_embeddings"];
  if (type === "yarn" && typeof orig === "number" && orig > 0) {
    if (orig >= INT64_LIMIT) return none;
    base = Math.trunc(orig);
  }
  const product = base * factor;
  if (product >= INT64_LIMIT || product < 0) return none;
  return { value: Math.trunc(product), applied: true };
}

/** A derived max-model-len and the lines the caller logs. */
export interface DerivedMaxModelLen {
  /** 0 when nothing is derived (max_position_embeddings ≤ 0): unlimited, the flag default. */
  value: number;
  infos: string[];
  warnings: string[];
}

/** Go's %T of a decoded JSON value (for the not-an-object warning). */
function goJsonType(v: unknown): string {
  if (typeof v === "string") return "string";
  if (typeof v === "number") return "float64";
  if (typeof v === "boolean") return "bool";
  if (Array.isArray(v)) return "[]interface {}";
  return "map[string]interface {}";
}

/**
 * max-model-len from the model config, for an analytical backend when --max-model-len was not
 * given (docs/latency.md "Max model length").
 */
export function deriveMaxModelLen(arch: ArchConfig): DerivedMaxModelLen {
  const m = arch.maxPositionEmbeddings;
  const out: DerivedMaxModelLen = { value: 0, infos: [], warnings: [] };
  if (m <= 0) return out;
  const rope = arch.ropeScaling;
  const scaled = applyRopeScaling(m, arch.modelType, rope);
  out.value = scaled.value;
  if (scaled.applied && isObject(rope)) {
    const factor = rope["factor"] as number;
    out.infos.push(
      `--latency-model: applying ${ropeScalingType(rope)} rope_scaling factor ${formatFixed(factor, 1)}: ${intText(m)} → ${intText(scaled.value)}`,
    );
  } else if (arch.modelType.includes("gemma3")) {
    out.infos.push("--latency-model: skipping rope_scaling for gemma3 (max_position_embeddings is pre-scaled)");
  } else if (rope !== undefined && rope !== null) {
    if (!isObject(rope)) {
      out.warnings.push(
        `--latency-model: rope_scaling present but not a JSON object (type ${goJsonType(rope)}); ignoring`,
      );
    } else if (Object.hasOwn(rope, "factor")) {
      out.warnings.push(
        "--latency-model: rope_scaling.factor present but not applied (excluded type, invalid value, or overflow); " +
          "using max_position_embeddings as-is",
      );
    }
  }
  out.infos.push(`--latency-model: auto-derived max-model-len=${intText(out.value)} from max_position_embeddings`);
  return out;
}

/**
 * Caps max-model-len so that one request of that length fits: if ceil(mml / blockSize) exceeds
 * the KV block count, the value becomes blocks · blockSize, with a warning. On the analytical
 * backends this applies even to an explicit --max-model-len (reference behaviour). Integer
 * arithmetic is exact for any int64 inputs.
 */
export function capMaxModelLenToKv(
  maxModelLen: number,
  totalKvBlocks: number,
  blockSize: number,
): { value: number; warning: string | null } {
  if (!(maxModelLen > 0 && blockSize > 0)) return { value: maxModelLen, warning: null };
  const mml = BigInt(maxModelLen);
  const bs = BigInt(blockSize);
  const blocks = BigInt(totalKvBlocks);
  const needed = (mml + bs - 1n) / bs;
  if (needed <= blocks) return { value: maxModelLen, warning: null };
  const capped = blocks * bs;
  return {
    value: Number(capped),
    warning:
      `--latency-model: max-model-len ${mml} exceeds KV capacity (${totalKvBlocks} blocks × ${blockSize} tokens); ` +
      `capping to ${capped} tokens`,
  };
}
