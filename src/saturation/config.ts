// The post-hoc saturation detectors' flags and configuration file (docs/saturation.md "Flags"):
// checked before the simulation, each problem one line naming its flag or key.
import { parseDocument } from "yaml";
import { z } from "zod";
import { UserError } from "../util/errors.js";
import { parseDurationMs } from "../metrics/sloTargets.js";
import { DETECTOR_NAMES, type DetectorName } from "./detectors.js";
import { InputFileError, readFailure, readInputFile, SPEC_FILE_LIMIT } from "../util/inputFile.js";

export interface SaturationFlags {
  detectors: string;
  saturationConfig: string;
  saturationReport: string;
  saturationFinalWindow: string;
}

export interface SaturationPlan {
  /** Selected detectors in run order (composite, threshold, backlog-drift). */
  detectors: DetectorName[];
  thresholdMs: number;
  windowSec: number;
  /** The final vote's window, µs. */
  finalWindowUs: number;
  /** --saturation-report path ("" = none). */
  report: string;
  /** Requests left in flight at the end add their arrivals (saturation probes; `blis run` never). */
  countOpen?: boolean;
}

const num = z.number();
const ConfigSchema = z
  .strictObject({
    threshold: z.strictObject({ threshold_ms: num.optional() }).nullish(),
    backlog_drift: z
      .strictObject({
        window_size_sec: num.optional(),
        min_windows: num.optional(),
        peak_ratio: num.optional(),
        peak_ratio_band: num.optional(),
        confidence_ci: num.optional(),
        warmup_windows: num.optional(),
        tail_windows: num.optional(),
        saturated_drain_ratio: num.optional(),
        transient_drain_ratio: num.optional(),
      })
      .nullish(),
  })
  .nullish();
type SaturationConfig = NonNullable<z.infer<typeof ConfigSchema>>;

const DEFAULT_THRESHOLD_MS = 5000;
const DEFAULT_WINDOW_SEC = 60;
const DEFAULT_FINAL_WINDOW_SEC = 30;

/** The selection of --detectors; null when off (""). */
export function parseDetectorSelection(text: string): DetectorName[] | null {
  if (text === "") return null;
  const names = text.split(",").filter((s) => s !== "");
  if (names.length === 0) throw new UserError(`--detectors "${text}" selects no detector`);
  if (names.includes("all")) {
    if (names.some((n) => n !== "all"))
      throw new UserError(`--detectors: "all" cannot be combined with detector names, got "${text}"`);
    return [...DETECTOR_NAMES];
  }
  for (const n of names) {
    if (!(DETECTOR_NAMES as readonly string[]).includes(n))
      throw new UserError(`--detectors: unknown saturation detector "${n}"; valid: ${DETECTOR_NAMES.join(", ")}`);
  }
  return DETECTOR_NAMES.filter((d) => names.includes(d));
}

/** Validates the flags and reads the configuration; null when no detector is selected. */
export function saturationPlan(f: SaturationFlags): SaturationPlan | null {
  const selected = parseDetectorSelection(f.detectors);
  if (selected === null) {
    for (const [flag, v] of [
      ["--saturation-config", f.saturationConfig],
      ["--saturation-report", f.saturationReport],
      ["--saturation-final-window", f.saturationFinalWindow],
    ] as const)
      if (v !== "") throw new UserError(`${flag} requires --detectors`);
    return null;
  }
  const cfg = f.saturationConfig === "" ? {} : readConfig(f.saturationConfig);
  if (cfg.threshold != null && !selected.includes("threshold"))
    throw new UserError(
      `--saturation-config: block "threshold" configures a detector that --detectors does not select`,
    );
  if (cfg.backlog_drift != null && !selected.includes("backlog-drift"))
    throw new UserError(
      `--saturation-config: block "backlog_drift" configures a detector that --detectors does not select`,
    );
  checkValues(cfg);
  const windowSec = cfg.backlog_drift?.window_size_sec;
  return {
    detectors: selected,
    thresholdMs: cfg.threshold?.threshold_ms ?? DEFAULT_THRESHOLD_MS,
    windowSec: windowSec ?? DEFAULT_WINDOW_SEC,
    finalWindowUs: finalWindowUs(f.saturationFinalWindow, windowSec),
    report: f.saturationReport,
    countOpen: false,
  };
}

/**
 * A saturation probe's plan: the probe's own backlog-drift window, and the backlog left at the end
 * counted (a probe stops when its arrivals stop, so its backlog never completes).
 */
export function probePlan(
  plan: SaturationPlan | null,
  probe: { windowSec: number } | undefined,
): SaturationPlan | null {
  if (plan === null || probe === undefined) return plan;
  return { ...plan, windowSec: probe.windowSec, countOpen: true };
}

function finalWindowUs(text: string, windowSec: number | undefined): number {
  if (text === "") return (windowSec ?? DEFAULT_FINAL_WINDOW_SEC) * 1e6;
  const ms = parseDurationMs(text);
  if (ms === null)
    throw new UserError(`--saturation-final-window: invalid duration "${text}" (expected e.g. 10s, 500ms, 1m)`);
  if (!(ms > 0)) throw new UserError(`--saturation-final-window must be positive, got "${text}"`);
  return ms * 1000;
}

function readConfig(file: string): SaturationConfig {
  let text: string;
  try {
    text = readInputFile(file, SPEC_FILE_LIMIT);
  } catch (e) {
    const code = (e as InputFileError).code;
    throw new UserError(`--saturation-config ${file}: ${code === "ENOENT" ? "no such file" : readFailure(e)}`);
  }
  const doc = parseDocument(text, { uniqueKeys: true, logLevel: "error" });
  if (doc.errors.length > 0)
    throw new UserError(`--saturation-config ${file}: ${doc.errors[0]!.message.split("\n")[0]}`);
  let raw: unknown;
  try {
    raw = doc.toJS({ maxAliasCount: 100 });
  } catch (e) {
    throw new UserError(`--saturation-config ${file}: ${(e as Error).message.split("\n")[0]}`);
  }
  const parsed = ConfigSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const key = [...issue.path, ...(issue.code === "unrecognized_keys" ? [issue.keys[0]!] : [])].map(String).join(".");
    const what = issue.code === "unrecognized_keys" ? "unknown key" : issue.message.toLowerCase();
    throw new UserError(`--saturation-config ${file}: ${key === "" ? "the document" : key}: ${what}`);
  }
  return parsed.data ?? {};
}

/** Range checks of every given value, unused ones included (as BLIS does). */
function checkValues(c: SaturationConfig): void {
  const bad = (key: string, v: number, rule: string): never => {
    throw new UserError(`--saturation-config: ${key} must be ${rule}, got ${v}`);
  };
  const t = c.threshold?.threshold_ms;
  if (t !== undefined && !(Number.isFinite(t) && t > 0)) bad("threshold.threshold_ms", t, "finite and > 0");
  const b = c.backlog_drift;
  if (b == null) return;
  const pos = (k: keyof typeof b): void => {
    const v = b[k];
    if (v !== undefined && !(Number.isFinite(v) && v > 0)) bad(`backlog_drift.${k}`, v, "> 0");
  };
  const nonNeg = (k: keyof typeof b): void => {
    const v = b[k];
    if (v !== undefined && !(Number.isFinite(v) && v >= 0)) bad(`backlog_drift.${k}`, v, ">= 0");
  };
  pos("window_size_sec");
  pos("min_windows");
  pos("peak_ratio");
  nonNeg("peak_ratio_band");
  nonNeg("warmup_windows");
  nonNeg("tail_windows");
  const ci = b.confidence_ci;
  if (ci !== undefined && !(ci > 0 && ci < 1)) bad("backlog_drift.confidence_ci", ci, "in (0, 1)");
  const s = b.saturated_drain_ratio;
  const tr = b.transient_drain_ratio;
  if (s !== undefined && !(s > 0 && s <= 1)) bad("backlog_drift.saturated_drain_ratio", s, "in (0, 1]");
  if (tr !== undefined && !(tr > 0 && tr <= 1)) bad("backlog_drift.transient_drain_ratio", tr, "in (0, 1]");
  if (s !== undefined && tr !== undefined && s > tr)
    throw new UserError(
      `--saturation-config: backlog_drift.saturated_drain_ratio (${s}) must not exceed transient_drain_ratio (${tr})`,
    );
}
