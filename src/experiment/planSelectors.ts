// Configuration references (`baseline`, ratio numerators and denominators): a full label or
// `axis=value` assignments, resolved against the expanded grid.

import { didYouMean } from "../util/didYouMean.js";
import type { Selector, SweepAxis, SweepConfig } from "./planTypes.js";

export interface SelectorContext {
  axes: SweepAxis[];
  configs: SweepConfig[];
}

/** The label of the axis value written as `text` (a label, the value as written, or an equal number). */
export function matchValue(axis: SweepAxis, text: string): string | null {
  if (axis.labels.includes(text)) return text;
  const k0 = axis.texts.indexOf(text);
  if (k0 >= 0) return axis.labels[k0]!;
  if (axis.numeric !== null) {
    const n = Number(text);
    const k = axis.numeric.findIndex((v) => v === n);
    if (text.trim() !== "" && k >= 0) return axis.labels[k]!;
  }
  return null;
}

/** Parses a config label or `axis=value[,axis=value…]` reference; returns an error text on failure. */
export function parseSelector(ctx: SelectorContext, text: string): Selector | string {
  const exact = ctx.configs.find((c) => c.label === text);
  if (exact !== undefined) return { text, config: exact.index };
  if (!text.includes("=")) return `no configuration labeled "${text}" (and it is not an axis=value reference)`;
  // Split on commas that start a new `axis=` (values may contain commas, e.g. scorer lists).
  const names = new Set(ctx.axes.map((a) => a.name));
  const parts: string[] = [];
  for (const piece of text.split(",")) {
    const eq = piece.indexOf("=");
    if (eq > 0 && names.has(piece.slice(0, eq).trim())) parts.push(piece);
    else if (parts.length > 0) parts[parts.length - 1] += "," + piece;
    else parts.push(piece);
  }
  const assign: Record<string, string> = {};
  for (const part of parts) {
    const eq = part.indexOf("=");
    const an = part.slice(0, eq).trim();
    const vt = part.slice(eq + 1).trim();
    const axis = ctx.axes.find((a) => a.name === an);
    if (eq <= 0 || axis === undefined) {
      return `no axis named "${eq > 0 ? an : part}"${didYouMean(an, [...names])} (axes: ${[...names].join(", ") || "none"})`;
    }
    const label = matchValue(axis, vt);
    if (label === null) return `no value "${vt}" in axis "${an}" (values: ${axis.labels.join(", ")})`;
    assign[an] = label;
  }
  if (Object.keys(assign).length === ctx.axes.length) {
    const c = ctx.configs.find((x) => ctx.axes.every((a) => x.coords[a.name] === assign[a.name]));
    if (c !== undefined) return { text, config: c.index };
  }
  return { text, assign };
}

export function parseSelectorOrFail(ctx: SelectorContext, text: string, fail: (msg: string) => never): Selector {
  const s = parseSelector(ctx, text);
  return typeof s === "string" ? fail(s) : s;
}

/** Configurations a selector designates on its own. */
export function matching(ctx: SelectorContext, s: Selector): SweepConfig[] {
  if ("config" in s) return [ctx.configs[s.config]!];
  return ctx.configs.filter((c) => Object.entries(s.assign).every(([k, v]) => c.coords[k] === v));
}

/** The config that `s` designates relative to `from` (assignments replace from's coordinates). */
export function resolveRelative(ctx: SelectorContext, s: Selector, from: SweepConfig): SweepConfig | null {
  if ("config" in s) return ctx.configs[s.config]!;
  const want = { ...from.coords, ...s.assign };
  return ctx.configs.find((c) => ctx.axes.every((a) => c.coords[a.name] === want[a.name])) ?? null;
}

/** (numerator, denominator) config pairs of a ratio, in numerator config order. */
export function pairs(ctx: SelectorContext, num: Selector, den: Selector): [SweepConfig, SweepConfig][] {
  const out: [SweepConfig, SweepConfig][] = [];
  for (const n of matching(ctx, num)) {
    const d = resolveRelative(ctx, den, n);
    if (d !== null && d.index !== n.index) out.push([n, d]);
  }
  return out;
}
