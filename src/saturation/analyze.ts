// Replays a finished run's completed requests as an arrival/completion stream through the selected
// detectors and votes each detector's final label (docs/saturation.md "How a run is labelled").
import {
  BacklogDriftDetector,
  CompositeDetector,
  SEVERITY,
  ThresholdDetector,
  type Detector,
  type DetectorName,
  type Level,
  type Verdict,
} from "./detectors.js";
import type { SaturationPlan } from "./config.js";

/** One completed request as the detectors see it. */
export interface CompletedRequest {
  id: string;
  /** Arrival, seconds (as in the results file's `arrived_at`). */
  arrivedAtS: number;
  e2eMs: number;
}

/** A request that arrived but had not completed when the run ended (an arrival without a completion). */
export interface OpenRequest {
  id: string;
  arrivedAtS: number;
}

export interface TraceRecord extends Verdict {
  time_us: number;
  detector: DetectorName;
}

export interface SaturationAnalysis {
  /** Detector → final label, keys sorted. */
  final: Record<string, Level>;
  trace: TraceRecord[];
}

const ARRIVAL = 0;
const COMPLETION = 1;

interface StreamEvent {
  time: number;
  kind: number;
  id: string;
  latencyMs: number;
}

/** The event stream: arrival and completion of each request with E2E > 0, and the open requests' arrivals. */
export function eventStream(reqs: readonly CompletedRequest[], open: readonly OpenRequest[] = []): StreamEvent[] {
  const events: StreamEvent[] = [];
  for (const r of open) events.push({ time: Math.floor(r.arrivedAtS * 1e6), kind: ARRIVAL, id: r.id, latencyMs: 0 });
  for (const r of reqs) {
    if (!(r.e2eMs > 0)) continue;
    const arrival = Math.floor(r.arrivedAtS * 1e6);
    events.push({ time: arrival, kind: ARRIVAL, id: r.id, latencyMs: 0 });
    events.push({ time: arrival + Math.floor(r.e2eMs * 1e3), kind: COMPLETION, id: r.id, latencyMs: r.e2eMs });
  }
  return events.sort((a, b) => a.time - b.time || a.kind - b.kind || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

function makeDetector(name: DetectorName, plan: SaturationPlan): Detector {
  if (name === "threshold") return new ThresholdDetector(plan.thresholdMs);
  if (name === "backlog-drift") return new BacklogDriftDetector(plan.windowSec);
  return new CompositeDetector();
}

/**
 * Runs the detectors over the stream; `warn` is told when nothing completed. `open` requests (a
 * saturation probe's backlog at its end) add their arrivals; `blis run --detectors` passes none.
 */
export function analyzeSaturation(
  reqs: readonly CompletedRequest[],
  plan: SaturationPlan,
  warn: (m: string) => void,
  open: readonly OpenRequest[] = [],
): SaturationAnalysis {
  const events = eventStream(reqs, open);
  const detectors = plan.detectors.map((d) => makeDetector(d, plan));
  const trace: TraceRecord[] = [];
  if (events.length === 0) warn("saturation detectors: no request completed; every label is STABLE");
  for (const e of events) {
    for (const d of detectors) {
      if (e.kind === ARRIVAL) d.arrival(e.time);
      else d.completion(e.time, e.latencyMs);
      trace.push({ time_us: e.time, detector: d.name, ...d.verdict() });
    }
  }
  const final: Record<string, Level> = {};
  for (const name of [...plan.detectors].sort()) final[name] = finalLabel(trace, name, plan.finalWindowUs);
  return { final, trace };
}

/** The most frequent level among the detector's records in the last window; ties → more severe. */
export function finalLabel(trace: readonly TraceRecord[], name: DetectorName, windowUs: number): Level {
  const own = trace.filter((r) => r.detector === name);
  if (own.length === 0) return "STABLE";
  const latest = own.reduce((m, r) => Math.max(m, r.time_us), -Infinity);
  const counts: Record<Level, number> = { STABLE: 0, BACKLOGGED: 0, OVERLOADED: 0 };
  for (const r of own) if (r.time_us >= latest - windowUs) counts[r.level]++;
  let best: Level = "STABLE";
  for (const l of ["BACKLOGGED", "OVERLOADED"] as const) {
    if (counts[l] > counts[best] || (counts[l] === counts[best] && SEVERITY[l] > SEVERITY[best])) best = l;
  }
  return best;
}

/** The `--saturation-report` file: two-space indented JSON and a newline. */
export function saturationReportJson(a: SaturationAnalysis): string {
  return JSON.stringify({ final: a.final, trace: a.trace }, null, 2) + "\n";
}
