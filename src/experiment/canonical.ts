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

/** Levenshtein distance, for "did you mean" hints. */
export function editDistance(a: string, b: string): number {
  const prev = new Array<number>(b.length + 1);
  for (let j = 0; j <= b.length; j++) prev[j] = j;
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0]!;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = prev[j]!;
      prev[j] = Math.min(prev[j]! + 1, prev[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = tmp;
    }
  }
  return prev[b.length]!;
}

/** ` (did you mean "x"?)` when a candidate is close enough, else "". */
export function didYouMean(word: string, candidates: readonly string[]): string {
  let best = "";
  let bestD = Infinity;
  for (const c of candidates) {
    const d = editDistance(word.toLowerCase(), c.toLowerCase());
    if (d < bestD) {
      bestD = d;
      best = c;
    }
  }
  return best !== "" && bestD <= Math.max(2, Math.floor(word.length / 3)) ? ` (did you mean "${best}"?)` : "";
}
