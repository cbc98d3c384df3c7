// Saturation detectors of gateway dispatch (docs/gateway.md "Dispatch"): s ≥ 1 means the pool is
// saturated. A registry, so that other signals can be added by name.
import type { RouterState } from "../cluster/snapshot.js";
import { UserError } from "../util/errors.js";

export interface SaturationDetector {
  readonly name: string;
  saturation(state: RouterState): number;
}

export interface DetectorParams {
  queueDepthThreshold: number;
  kvCacheUtilThreshold: number;
  maxConcurrency: number;
}

/** Mean over candidates of max(Q / queue threshold, U / KV threshold); 1 with no candidates. */
export function utilization(state: RouterState, qd: number, kv: number): number {
  const snaps = state.snapshots;
  if (snaps.length === 0) return 1;
  let sum = 0;
  for (const s of snaps) {
    const a = s.queueDepth / qd;
    const b = s.kvUtilization / kv;
    sum += a > b ? a : b;
  }
  return sum / snaps.length;
}

interface DetectorEntry {
  create(p: DetectorParams): SaturationDetector;
  validate(p: DetectorParams): void;
}

const finitePositive = (v: number, flag: string): void => {
  if (!Number.isFinite(v) || v <= 0) throw new UserError(`${flag} must be a finite value > 0, got ${v}`);
};

const DETECTORS = new Map<string, DetectorEntry>([
  ["never", { create: () => ({ name: "never", saturation: () => 0 }), validate: () => undefined }],
  [
    "utilization",
    {
      create: (p) => ({
        name: "utilization",
        saturation: (st) => utilization(st, p.queueDepthThreshold, p.kvCacheUtilThreshold),
      }),
      validate: (p) => {
        finitePositive(p.queueDepthThreshold, "--queue-depth-threshold");
        // KV utilization is a fraction: a threshold above 1 could never be reached.
        const kv = p.kvCacheUtilThreshold;
        if (!(Number.isFinite(kv) && kv > 0 && kv <= 1))
          throw new UserError(`--kv-cache-util-threshold must be in (0, 1], got ${kv}`);
      },
    },
  ],
  [
    "concurrency",
    {
      create: (p) => ({
        name: "concurrency",
        saturation: (st) => {
          const snaps = st.snapshots;
          if (snaps.length === 0) return 1;
          let f = 0;
          for (const s of snaps) f += s.inFlight;
          return f / (snaps.length * p.maxConcurrency);
        },
      }),
      validate: (p) => {
        if (p.maxConcurrency <= 0) throw new UserError(`--max-concurrency must be > 0, got ${p.maxConcurrency}`);
      },
    },
  ],
]);

export function detectorNames(): string[] {
  return [...DETECTORS.keys()].sort();
}

/**
 * Checks the name, then the parameters of the selected detector (its messages first), then those
 * of every other detector: a bad value is a mistake even where it has no effect.
 */
export function validateDetector(name: string, p: DetectorParams): void {
  const d = DETECTORS.get(name);
  if (d === undefined)
    throw new UserError(`Unknown saturation detector "${name}". Valid: ${detectorNames().join(", ")}`);
  d.validate(p);
  for (const other of DETECTORS.values()) other.validate(p);
}

export function createDetector(name: string, p: DetectorParams): SaturationDetector {
  return DETECTORS.get(name)!.create(p);
}
