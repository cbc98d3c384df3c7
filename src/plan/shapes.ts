// The candidate space of a plan: GPU × TP × co-located or prefill/decode split × engine limits.
// A shape is one deployment layout; the search finds how many copies of it the load needs.

import { BUNDLED_HARDWARE_V2 } from "../util/paths.js";
import { UserError } from "../util/errors.js";
import { readInputFile, SPEC_FILE_LIMIT } from "../util/inputFile.js";

/** Co-located serving, or prefill and decode pools in the ratio prefill:decode. */
export type PdLayout = { kind: "none" } | { kind: "split"; prefill: number; decode: number };

export interface Shape {
  /** Stable identity, e.g. `H100/tp2/1:3/s256/b2048`. */
  id: string;
  gpu: string;
  tp: number;
  pd: PdLayout;
  maxNumSeqs: number;
  maxNumBatchedTokens: number;
}

export function pdText(pd: PdLayout): string {
  return pd.kind === "none" ? "none" : `${pd.prefill}:${pd.decode}`;
}

/** Instances in one unit of the shape: 1 co-located, prefill + decode for a split. */
export function instancesPerUnit(s: Shape): number {
  return s.pd.kind === "none" ? 1 : s.pd.prefill + s.pd.decode;
}

/** GPUs of `units` copies of the shape. */
export function gpusOf(s: Shape, units: number): number {
  return units * instancesPerUnit(s) * s.tp;
}

export function shapeId(gpu: string, tp: number, pd: PdLayout, seqs: number, mbt: number): string {
  return `${gpu}/tp${tp}/${pdText(pd)}/s${seqs}/b${mbt}`;
}

/** Parses `--pd none,1:3,2:2`. */
export function parsePdList(text: string): PdLayout[] {
  const out: PdLayout[] = [];
  for (const part of text.split(",").map((s) => s.trim())) {
    if (part === "none") out.push({ kind: "none" });
    else {
      const m = /^(\d+):(\d+)$/.exec(part);
      const p = m === null ? 0 : Number(m[1]);
      const d = m === null ? 0 : Number(m[2]);
      if (!(p >= 1 && d >= 1))
        throw new UserError(`--pd: "${part}" is neither "none" nor PREFILL:DECODE with both >= 1 (e.g. 1:3)`);
      out.push({ kind: "split", prefill: p, decode: d });
    }
  }
  const seen = new Set(out.map(pdText));
  if (seen.size !== out.length) throw new UserError(`--pd: a layout is listed twice in "${text}"`);
  return out;
}

/** Parses a comma-separated list of positive integers (`--tp 1,2,4`). */
export function parseIntList(flag: string, text: string): number[] {
  const out = text.split(",").map((s) => s.trim());
  const nums = out.map(Number);
  nums.forEach((n, i) => {
    if (!(/^\d+$/.test(out[i]!) && Number.isSafeInteger(n) && n >= 1)) {
      throw new UserError(`${flag}: "${out[i]}" is not a positive integer`);
    }
  });
  if (new Set(nums).size !== nums.length) throw new UserError(`${flag}: a value is listed twice in "${text}"`);
  return nums;
}

/** GPU names of a hardware file (the top-level entries), in file order. */
export function hardwareGpus(file: string = BUNDLED_HARDWARE_V2): string[] {
  let raw: unknown;
  try {
    raw = JSON.parse(readInputFile(file, SPEC_FILE_LIMIT));
  } catch (e) {
    throw new UserError(`hardware list ${file}: ${e instanceof Error ? e.message.split("\n")[0] : String(e)}`);
  }
  if (raw === null || typeof raw !== "object") return [];
  return Object.entries(raw as Record<string, unknown>)
    .filter(([k, v]) => !k.startsWith("_") && v !== null && typeof v === "object")
    .map(([k]) => k);
}

export interface SpaceAxes {
  gpus: string[];
  tps: number[];
  pds: PdLayout[];
  maxNumSeqs: number[];
  maxNumBatchedTokens: number[];
}

/** Every combination of the axes, GPU outermost (the order ties are broken in). */
export function enumerateShapes(a: SpaceAxes): Shape[] {
  const out: Shape[] = [];
  for (const gpu of a.gpus)
    for (const tp of a.tps)
      for (const pd of a.pds)
        for (const s of a.maxNumSeqs)
          for (const b of a.maxNumBatchedTokens)
            out.push({ id: shapeId(gpu, tp, pd, s, b), gpu, tp, pd, maxNumSeqs: s, maxNumBatchedTokens: b });
  return out;
}
