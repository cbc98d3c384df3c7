// Whether a spec bounds itself: when every client (explicit, inference-perf or cohort member)
// is active only inside finite lifecycle windows, generation ends at the last window's end and
// needs neither num_requests nor a horizon (docs/behavior.md "Sources and precedence").

import { cohortWindows } from "../spec/cohorts.js";
import { findInferencePerfFailure, stageWindows } from "../spec/inferencePerf.js";
import type { ClientSpec, WindowSpec, WorkloadSpec } from "../spec/types.js";
import { scheduleEnd } from "./rateSchedule.js";

/** Latest end of the non-empty windows; −Infinity if none can match; Infinity if any end is not finite. */
function windowsEnd(windows: readonly WindowSpec[]): number {
  let end = -Infinity;
  for (const w of windows) {
    if (!(w.start_us < w.end_us)) continue; // empty or inverted: never matches (docs/behavior.md "Arrivals")
    if (!Number.isFinite(w.end_us)) return Infinity;
    end = Math.max(end, w.end_us);
  }
  return end;
}

function clientEnd(c: ClientSpec): number {
  const windows = c.lifecycle === undefined ? Infinity : windowsEnd(c.lifecycle.windows);
  // A rate schedule ending at rate 0 switches the client off too.
  return c.rate_schedule === undefined ? windows : Math.min(windows, scheduleEnd(c.rate_schedule));
}

/**
 * Where the clients come from, mirroring generation (explicit clients win; docs/behavior.md
 * "The workload spec").
 */
function clientsEnd(s: WorkloadSpec): number {
  if (s.clients.length > 0) {
    let end = -Infinity;
    for (const c of s.clients) end = Math.max(end, clientEnd(c));
    return end;
  }
  if (s.inference_perf !== undefined) {
    // An invalid section stays unbounded here; its own error is reported by generation.
    if (findInferencePerfFailure(s.inference_perf) !== null) return Infinity;
    return windowsEnd(stageWindows(s.inference_perf.stages));
  }
  // ServeGen clients have no windows; a spec with no source at all fails validation later.
  return Infinity;
}

/**
 * The tick from which no client can start a request or session, or Infinity when some client
 * is never switched off. Session rounds started before it may still arrive after it.
 */
export function generationEnd(s: WorkloadSpec): number {
  if (s.clients.length === 0 && s.cohorts.length === 0 && s.inference_perf === undefined) return Infinity;
  let end = clientsEnd(s);
  for (const c of s.cohorts) {
    if (end === Infinity) break;
    // A cohort without diurnal/spike/drain pattern has no lifecycle: always active.
    const windows = cohortWindows(c);
    end = Math.max(end, windows.length === 0 ? Infinity : windowsEnd(windows));
  }
  return end;
}
