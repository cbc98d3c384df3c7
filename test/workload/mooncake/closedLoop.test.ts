// Closed-loop trace replay (docs/traces.md "Closed loop"): N requests in flight, timestamps
// ignored. Every end sends the next request at its tick, so while the trace has requests left
// exactly N are in flight: L = N, and Little's law λW = L holds over that time.
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { simulate } from "../../../src/sim/simulate.js";
import { silentLogger } from "../../../src/util/log.js";
import { Rng } from "../../../src/engine/rng.js";
import { SessionManager } from "../../../src/workload/sessions/manager.js";
import { mooncakeWorkload } from "../../../src/workload/mooncake/workload.js";
import type { WorkloadRequest } from "../../../src/core/workloadRequest.js";
import { FC_SEED } from "../../helpers/fc.js";
import { traceFile, type Line } from "./helpers.js";

function randomTrace(rng: Rng, n: number): Line[] {
  const lines: Line[] = [];
  for (let i = 0; i < n; i++) {
    const blocks = 1 + rng.intn(6);
    const shared = rng.intn(blocks + 1);
    const hash = Array.from({ length: blocks }, (_, j) => (j < shared ? j : 100000 + i * 10 + j));
    // Timestamps far apart: closed loop must ignore them.
    lines.push({
      timestamp: i * 60000,
      input_length: blocks * 64 - rng.intn(60),
      output_length: 1 + rng.intn(80),
      hash_ids: hash,
    });
  }
  return lines;
}

/** Little's law over [0, the last arrival]: λ·W of the arrivals in it, and L from the stays. */
function little(arr: readonly number[], stay: readonly number[]): { L: number; lambdaW: number; edge: number } {
  const end = Math.max(...arr);
  let area = 0;
  let n = 0;
  let sum = 0;
  let maxStay = 0;
  for (let i = 0; i < arr.length; i++) {
    area += Math.max(0, Math.min(arr[i]! + stay[i]!, end) - arr[i]!);
    if (arr[i]! >= end) continue;
    n++;
    sum += stay[i]!;
    maxStay = Math.max(maxStay, stay[i]!);
  }
  // λW counts whole stays that the window's end may cut: at most N · maxStay / end apart.
  return { L: area / end, lambdaW: (n / end) * (sum / n), edge: maxStay / end };
}

test("the feed keeps exactly N in flight and L = λW = N (property, any service times)", () => {
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 12 }), fc.integer({ min: 20, max: 120 }), fc.integer(), (users, n, seed) => {
      const rng = new Rng(BigInt(seed));
      const file = traceFile(randomTrace(rng, n));
      const { source, sessions } = mooncakeWorkload(
        { path: file, block_size: 64, time_scale: 1, concurrency: users },
        { horizon: Infinity, maxRequests: 0, seed: 3n, timeoutUs: 0 },
      );
      const manager = new SessionManager(sessions!, silentLogger);
      // An infinite server: each request stays a time of its own; the earliest end goes first.
      const inFlight: { r: WorkloadRequest; end: number }[] = [];
      const arr: number[] = [];
      const stay: number[] = [];
      const admit = (r: WorkloadRequest): void => {
        const s = 1 + rng.intn(10000) + r.inputLen;
        arr.push(r.arrival);
        stay.push(s);
        inFlight.push({ r, end: r.arrival + s });
      };
      for (let r = source.next(); r !== null; r = source.next()) admit(r);
      assert.equal(inFlight.length, Math.min(users, n));
      while (inFlight.length > 0) {
        inFlight.sort((a, b) => a.end - b.end);
        const { r, end } = inFlight.shift()!;
        const next = manager.onEnd(
          { id: r.id, inputLen: r.inputLen, outputLen: r.outputLen, pi: r.inputLen + r.outputLen - 1 },
          end,
          rng.intn(5) === 0,
        );
        if (next !== null) {
          assert.equal(next.arrival, end);
          admit(next);
          assert.equal(inFlight.length, users, "a replacement for every end while the trace lasts");
        }
      }
      assert.equal(arr.length, n, "every line is sent once");
      if (n <= users) return;
      const { L, lambdaW, edge } = little(arr, stay);
      assert.ok(Math.abs(L - users) < 1e-9 * users, `L = ${L}`);
      assert.ok(Math.abs(lambdaW - users) <= users * edge + 1e-9, `λW = ${lambdaW}, N = ${users}`);
    }),
    { seed: FC_SEED, numRuns: 40 },
  );
});

for (const [seed, users, n] of [
  [1, 1, 40],
  [2, 3, 120],
  [3, 8, 200],
  [5, 40, 30],
] as const) {
  test(`a simulated closed loop of ${users} over ${n} requests: Little's law with the measured E2E (seed ${seed})`, async () => {
    const file = traceFile(randomTrace(new Rng(BigInt(seed)), n));
    const spec = { version: "2", seed, mooncake_trace: { path: file, block_size: 64, concurrency: users } };
    const res = await simulate(
      { model: "meta-llama/llama-3.1-8b-instruct", workloadSpecObject: spec, numInstances: 2, totalKvBlocks: 4000 },
      { logger: silentLogger },
    );
    const l = res.run.ledger;
    assert.equal(l.size, n);
    const arr: number[] = [];
    const e2e: number[] = [];
    for (let i = 0; i < n; i++) {
      assert.ok(l.isCompleted(i), `request ${i} completed`);
      arr.push(l.arrival[i]!);
      e2e.push(l.e2e[i]!);
    }
    const first = Math.min(users, n);
    assert.deepEqual(arr.slice(0, first), new Array(first).fill(0), "the first N arrive at once");
    assert.ok(
      arr.slice(first).every((a) => a > 0),
      "the others when one ends, timestamps ignored",
    );
    if (n <= users) return;
    // A request's E2E runs a little past its leave (the model's output processing, about 1 ms), so
    // λW with E2E exceeds N by that share of W at most.
    const { lambdaW, edge } = little(arr, e2e);
    assert.ok(lambdaW >= users * (1 - edge) && lambdaW <= users * 1.05 + users * edge, `λW = ${lambdaW}, N = ${users}`);
  });
}
