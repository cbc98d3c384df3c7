// Arrivals and order of a replayed trace (docs/traces.md "Mooncake traces"): measured from the
// earliest timestamp, scaled by time_scale, in timestamp order, capped by the request count and
// the horizon; lengths as written.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mooncakeWorkload } from "../../../src/workload/mooncake/workload.js";
import type { WorkloadRequest } from "../../../src/core/workloadRequest.js";
import { traceFile } from "./helpers.js";

const LINES = [
  { timestamp: 1500, input_length: 30, output_length: 3 },
  { timestamp: 1000, input_length: 10, output_length: 1 },
  { timestamp: 1250.5, input_length: 20, output_length: 2 },
  { timestamp: 1500, input_length: 40, output_length: 4 },
];

function drain(o: { timeScale?: number; maxRequests?: number; horizon?: number }): WorkloadRequest[] {
  const { source, sessions } = mooncakeWorkload(
    { path: traceFile(LINES), block_size: 512, time_scale: o.timeScale ?? 1, concurrency: 0 },
    { horizon: o.horizon ?? Infinity, maxRequests: o.maxRequests ?? 0, seed: 5n, timeoutUs: 0 },
  );
  assert.equal(sessions, null);
  const out: WorkloadRequest[] = [];
  for (let r = source.next(); r !== null; r = source.next()) out.push(r);
  return out;
}

test("arrivals from the earliest timestamp in µs, in timestamp order (file order on ties), renumbered", () => {
  const rs = drain({});
  assert.deepEqual(
    rs.map((r) => [r.id, r.arrival, r.inputLen, r.outputLen]),
    [
      ["request_0", 0, 10, 1],
      ["request_1", 250500, 20, 2],
      ["request_2", 500000, 30, 3],
      ["request_3", 500000, 40, 4],
    ],
  );
});

test("time_scale scales the gaps; the request cap and the horizon cut the replay", () => {
  assert.deepEqual(
    drain({ timeScale: 0.5 }).map((r) => r.arrival),
    [0, 125250, 250000, 250000],
  );
  assert.deepEqual(
    drain({ timeScale: 2 }).map((r) => r.arrival),
    [0, 501000, 1000000, 1000000],
  );
  assert.equal(drain({ maxRequests: 2 }).length, 2);
  assert.deepEqual(
    drain({ horizon: 500000 }).map((r) => r.arrival),
    [0, 250500],
  );
});

test("the same trace and seed give the same requests, token IDs included", () => {
  const a = drain({});
  const b = drain({});
  assert.deepEqual(
    a.map((r) => [...r.tokens]),
    b.map((r) => [...r.tokens]),
  );
});
