import { createHash } from "node:crypto";

/**
 * Deterministic JSON for hashing: object keys sorted, bigints and non-finite numbers spelled out
 * (plain JSON would turn Infinity into null and reject bigints), undefined members dropped.
 */
export function canonicalJson(value: unknown): string {
  if (value === null) return "null";
  switch (typeof value) {
    case "undefined":
      return "null";
    case "boolean":
      return value ? "true" : "false";
    case "bigint":
      return `{"$bigint":"${value.toString()}"}`;
    case "number":
      return Number.isFinite(value) ? JSON.stringify(value) : `{"$number":"${String(value)}"}`;
    case "string":
      return JSON.stringify(value);
    case "object": {
      if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
      const keys = Object.keys(value).sort();
      const parts: string[] = [];
      for (const k of keys) {
        const v = (value as Record<string, unknown>)[k];
        if (v === undefined) continue;
        parts.push(`${JSON.stringify(k)}:${canonicalJson(v)}`);
      }
      return `{${parts.join(",")}}`;
    }
    default:
      throw new TypeError(`cannot hash a value of type ${typeof value}`);
  }
}

export function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

export function canonicalHash(value: unknown): string {
  return sha256(canonicalJson(value));
}
