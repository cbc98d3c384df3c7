import { UserError } from "../util/errors.js";
import { DEFAULT_SLO_CACHE_WEIGHTS } from "../policy/sloTiers.js";
import { parseGoFloat, parseGoInt } from "../util/parse.js";
import { scorers } from "../cluster/scorers/scorer.js";
import type { ScorerSpec } from "../cluster/scorers/scorer.js";

/**
 * `--routing-scorers "name:weight,..."` (docs/behavior.md "Routing and scorers"). Empty string →
 * null (use fallbacks).
 */
export function parseRoutingScorers(text: string): ScorerSpec[] | null {
  if (text === "") return null;
  const out: ScorerSpec[] = [];
  const seen = new Set<string>();
  const fail = (m: string): never => {
    throw new UserError(`Invalid --routing-scorers: ${m}`);
  };
  for (const raw of text.split(",")) {
    const piece = raw.trim();
    const colon = piece.indexOf(":");
    if (colon < 0) fail(`invalid scorer config "${piece}" (expected name:weight)`);
    const name = piece.slice(0, colon).trim();
    const wText = piece.slice(colon + 1).trim();
    if (!scorers.has(name)) fail(`unknown scorer "${name}"; valid: ${scorers.names().join(", ")}`);
    if (seen.has(name)) fail(`duplicate scorer "${name}"; each scorer may appear at most once`);
    seen.add(name);
    const w = parseGoFloat(wText);
    if (w === null) fail(`invalid weight for scorer "${name}": ${JSON.stringify(wText)} is not a number`);
    if (!Number.isFinite(w!) || w! <= 0) fail(`scorer "${name}" weight must be a finite positive number, got ${wText}`);
    out.push({ name, weight: w! });
  }
  return out;
}

const TIERS = ["critical", "standard", "sheddable"] as const;

/** `--slo-cache-weights "critical:0.25,..."` → α by tier rank [sheddable, standard, critical]. */
export function parseSloCacheWeights(text: string, flag = "--slo-cache-weights"): [number, number, number] {
  const m = new Map<string, number>(Object.entries(DEFAULT_SLO_CACHE_WEIGHTS));
  if (text.trim() !== "") {
    const seen = new Set<string>();
    for (const raw of text.split(",")) {
      const piece = raw.trim();
      const colon = piece.indexOf(":");
      if (colon < 0) throw new UserError(`Invalid ${flag}: invalid entry "${piece}" (expected tier:weight)`);
      const tier = piece.slice(0, colon).trim();
      const v = parseGoFloat(piece.slice(colon + 1).trim());
      if (!(TIERS as readonly string[]).includes(tier)) {
        throw new UserError(`Invalid ${flag}: unknown tier "${tier}"; valid: ${TIERS.join(", ")}`);
      }
      if (seen.has(tier)) throw new UserError(`Invalid ${flag}: duplicate tier "${tier}"`);
      seen.add(tier);
      if (v === null || !Number.isFinite(v) || v < 0 || v > 1) {
        throw new UserError(`Invalid ${flag}: weight for "${tier}" must be a finite number in [0, 1]`);
      }
      m.set(tier, v);
    }
  }
  return [m.get("sheddable")!, m.get("standard")!, m.get("critical")!];
}

export const SLO_CLASS_KEYS = ["critical", "standard", "sheddable", "batch", "background", "default"] as const;

/**
 * `--slo-prefill-thresholds "critical:0,sheddable:256"`
 * (docs/behavior.md "Batch formation and chunked prefill"). Empty → null.
 */
export function parseSloPrefillThresholds(text: string): Map<string, number> | null {
  if (text.trim() === "") return null;
  const m = new Map<string, number>();
  for (const raw of text.split(",")) {
    const piece = raw.trim();
    const colon = piece.indexOf(":");
    if (colon < 0)
      throw new UserError(`Invalid --slo-prefill-thresholds: invalid entry "${piece}" (expected class:tokens)`);
    const cls = piece.slice(0, colon).trim();
    const vText = piece.slice(colon + 1).trim();
    if (!(SLO_CLASS_KEYS as readonly string[]).includes(cls)) {
      throw new UserError(
        `Invalid --slo-prefill-thresholds: unknown class "${cls}"; valid: ${SLO_CLASS_KEYS.join(", ")}`,
      );
    }
    if (m.has(cls)) throw new UserError(`Invalid --slo-prefill-thresholds: duplicate class "${cls}"`);
    const v = parseGoInt(vText);
    if (v === null || v < 0n) {
      throw new UserError(
        `Invalid --slo-prefill-thresholds: threshold for "${cls}" must be an integer >= 0, got ${vText}`,
      );
    }
    m.set(cls, Number(v));
  }
  return m;
}

/** Map form of the same lists, as policy bundles write them. */
export function mapToListText(m: Record<string, number>): string {
  return Object.entries(m)
    .map(([k, v]) => `${k}:${v}`)
    .join(",");
}
