// Synthetic traces for fit tests: varied prompt and output lengths, Poisson arrivals, and the
// latencies a replay with given coefficients produces as the measurements.

import assert from "node:assert/strict";
import { Rng } from "../../src/engine/rng.js";
import { replay } from "../../src/calibration/replay.js";
import type { Coefficients } from "../../src/latency/backends/backend.js";
import type { RunInput } from "../../src/config/runOptions.js";
import { emptyTraceRecord, newTraceHeader, type TraceRecord, type TraceV2 } from "../../src/workload/index.js";

/** Requests with varied prompt and output lengths, Poisson arrivals at `rate` per second. */
export function syntheticTrace(n: number, rate: number, seed: number): TraceV2 {
  const rng = new Rng(BigInt(seed));
  let t = 0;
  const records: TraceRecord[] = [];
  for (let k = 0; k < n; k++) {
    t += Math.floor((-Math.log(1 - rng.float64()) / rate) * 1e6);
    records.push({
      ...emptyTraceRecord(),
      request_id: k,
      input_tokens: 64 + rng.intn(1800),
      output_tokens: 8 + rng.intn(300),
      arrival_time_us: t,
      send_time_us: t,
    });
  }
  return { header: newTraceHeader("generated"), layout: "v3", optionalColumns: [], records };
}

/** The same trace with the latencies a replay with `coefficients` produces, as measurements. */
export async function measuredWith(trace: TraceV2, run: RunInput, coefficients: Coefficients): Promise<TraceV2> {
  const res = await replay(trace, { run, coefficients });
  const byId = new Map(res.requests.map((r) => [r.request_id, r]));
  const records = trace.records.map((r) => {
    const s = byId.get(r.request_id);
    assert.ok(s !== undefined, `request ${r.request_id} completed`);
    return { ...r, first_chunk_time_us: r.send_time_us + s.ttft_us, last_chunk_time_us: r.send_time_us + s.e2e_us };
  });
  return { ...trace, records };
}
