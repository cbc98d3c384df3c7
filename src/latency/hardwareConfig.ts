// hardware_config.json: GPU calibration entries for the seed roofline model (docs/latency.md
// "Backends").

import { UserError } from "../util/errors.js";
import { readFailure, readInputFile, SPEC_FILE_LIMIT } from "../util/inputFile.js";

/** One GPU's calibration. Missing fields are 0. */
export interface HardwareCalib {
  /** Peak TFLOP/s (`TFlopsPeak`). */
  tFlopsPeak: number;
  /** Peak FP8 TFLOP/s (`TFlopsFP8`; 0 = no native FP8). Read by the current analytical backends. */
  tFlopsFP8: number;
  /** Peak HBM TB/s (`BwPeakTBs`). */
  bwPeakTBs: number;
  /** Fraction of peak bandwidth achieved (`BwEffConstant`). */
  bwEffConstant: number;
  /** Fixed per-step overhead in ticks (`TOverheadMicros`). */
  tOverheadMicros: number;
  /** Per-layer overhead in ticks (`perLayerOverhead`). */
  perLayerOverhead: number;
  /** Prefill MFU (`mfuPrefill`). */
  mfuPrefill: number;
  /** Decode MFU (`mfuDecode`). */
  mfuDecode: number;
  /** Per all-reduce latency in ticks (`allReduceLatency`). */
  allReduceLatency: number;
  /** GPU memory (`MemoryGiB`; validated, otherwise unused). */
  memoryGiB: number;
}

/** JSON key → field, as spelled in BLIS's struct tags. */
const FIELDS: ReadonlyArray<readonly [string, keyof HardwareCalib]> = [
  ["TFlopsPeak", "tFlopsPeak"],
  ["TFlopsFP8", "tFlopsFP8"],
  ["BwPeakTBs", "bwPeakTBs"],
  ["BwEffConstant", "bwEffConstant"],
  ["TOverheadMicros", "tOverheadMicros"],
  ["perLayerOverhead", "perLayerOverhead"],
  ["mfuPrefill", "mfuPrefill"],
  ["mfuDecode", "mfuDecode"],
  ["allReduceLatency", "allReduceLatency"],
  ["MemoryGiB", "memoryGiB"],
];

/**
 * Case folding as Go's encoding/json matches object keys to struct fields: per code point,
 * upper(lower(c)) (so "tflopspeak" and "TFLOPSPEAK" both name TFlopsPeak).
 */
function foldKey(key: string): string {
  let out = "";
  for (const ch of key) {
    const c = ch.codePointAt(0)!;
    if (c < 0x80) {
      out += c >= 0x61 && c <= 0x7a ? String.fromCharCode(c - 0x20) : ch;
      continue;
    }
    const folded = ch.toLowerCase().toUpperCase();
    out += [...folded].length === 1 ? folded : ch;
  }
  return out;
}

const FIELD_BY_FOLDED = new Map<string, readonly [string, keyof HardwareCalib]>(
  FIELDS.map((f) => [foldKey(f[0]), f] as const),
);

export function emptyHardwareCalib(): HardwareCalib {
  return {
    tFlopsPeak: 0,
    tFlopsFP8: 0,
    bwPeakTBs: 0,
    bwEffConstant: 0,
    tOverheadMicros: 0,
    perLayerOverhead: 0,
    mfuPrefill: 0,
    mfuDecode: 0,
    allReduceLatency: 0,
    memoryGiB: 0,
  };
}

function jsonKind(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  return typeof v;
}

/**
 * Parses the text of a hardware config: a JSON object keyed by GPU name, each value an object
 * whose keys are matched to the calibration fields case-insensitively; unknown keys (such as
 * `_comment`) are ignored and `null` leaves a field at 0. Throws Error (one line) for text that
 * is not such an object or for a known field holding a non-number.
 */
export function parseHardwareConfigs(text: string): Map<string, HardwareCalib> {
  let top: unknown;
  try {
    top = JSON.parse(text);
  } catch (e) {
    throw new Error(`parse hardware config JSON: ${(e as Error).message.replace(/\s+/g, " ")}`);
  }
  if (typeof top !== "object" || top === null || Array.isArray(top)) {
    throw new Error(`parse hardware config JSON: expected an object keyed by GPU name, got ${jsonKind(top)}`);
  }
  const out = new Map<string, HardwareCalib>();
  for (const [gpu, entry] of Object.entries(top)) {
    if (entry === null) {
      out.set(gpu, emptyHardwareCalib());
      continue;
    }
    if (typeof entry !== "object" || Array.isArray(entry)) {
      throw new Error(`parse hardware config JSON: entry "${gpu}" must be an object, got ${jsonKind(entry)}`);
    }
    const calib = emptyHardwareCalib();
    for (const [key, value] of Object.entries(entry as Record<string, unknown>)) {
      const field = FIELD_BY_FOLDED.get(foldKey(key));
      if (field === undefined || value === null) continue;
      if (typeof value !== "number") {
        throw new Error(
          `parse hardware config JSON: "${gpu}".${key} must be a number (field ${field[0]}), got ${jsonKind(value)}`,
        );
      }
      calib[field[1]] = value;
    }
    out.set(gpu, calib);
  }
  return out;
}

/** Go's byte-wise string order (UTF-8), as sort.Strings. */
function compareUtf8(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));
}

/**
 * The entry for `gpu` (exact, case-sensitive). Throws Error
 * `GPU "X" not found in hardware config (available: [A B C])` with the sorted names.
 */
export function selectHardware(configs: ReadonlyMap<string, HardwareCalib>, gpu: string): HardwareCalib {
  const calib = configs.get(gpu);
  if (calib !== undefined) return calib;
  const names = [...configs.keys()].sort(compareUtf8);
  throw new Error(`GPU "${gpu}" not found in hardware config (available: [${names.join(" ")}])`);
}

/**
 * Loads `path` and returns the entry for `gpu`. Every failure is a UserError
 * "Failed to load hardware config: …" (one line).
 */
export function loadHardwareConfig(path: string, gpu: string): HardwareCalib {
  let text: string;
  try {
    text = readInputFile(path, SPEC_FILE_LIMIT);
  } catch (e) {
    const reason = readFailure(e);
    throw new UserError(`Failed to load hardware config: read hardware config "${path}": ${reason}`);
  }
  try {
    return selectHardware(parseHardwareConfigs(text), gpu);
  } catch (e) {
    throw new UserError(`Failed to load hardware config: ${(e as Error).message}`);
  }
}

/** GPU names of a hardware file, sorted (empty when it cannot be read). */
export function hardwareNames(path: string): string[] {
  try {
    return Object.keys(JSON.parse(readInputFile(path, SPEC_FILE_LIMIT)) as object).sort();
  } catch {
    return [];
  }
}
