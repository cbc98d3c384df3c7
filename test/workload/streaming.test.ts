import assert from "node:assert/strict";
import { test } from "node:test";
import { createRequestSource, dist, makeClient, makeSpec } from "../../src/workload/index.js";

test("1,000,000 requests stream with bounded heap", () => {
  const spec = makeSpec({
    seed: 1n,
    aggregate_rate: 1000,
    num_requests: 1_000_000,
    clients: [
      makeClient({
        rate_fraction: 1,
        arrival: { process: "poisson" },
        input_distribution: dist("constant", { value: 4 }),
        output_distribution: dist("constant", { value: 2 }),
      }),
      makeClient({
        rate_fraction: 1,
        arrival: { process: "constant" },
        input_distribution: dist("constant", { value: 3 }),
        output_distribution: dist("constant", { value: 2 }),
        reasoning: {
          reason_ratio_distribution: dist("", {}),
          multi_turn: { max_rounds: 3, think_time_us: 1000, context_growth: "accumulate" },
        },
      }),
    ],
  });
  const start = Date.now();
  const source = createRequestSource(spec);
  let n = 0;
  let last = -Infinity;
  let maxHeap = 0;
  for (let r = source.next(); r !== null; r = source.next()) {
    assert.ok(r.arrival >= last);
    last = r.arrival;
    n++;
    if ((n & 0x3fff) === 0) maxHeap = Math.max(maxHeap, process.memoryUsage().heapUsed);
  }
  assert.equal(n, 1_000_000);
  assert.equal(source.produced, 1_000_000);
  assert.ok(maxHeap < 300e6, `heap peaked at ${(maxHeap / 1e6).toFixed(0)} MB`);
  assert.ok(Date.now() - start < 10_000, `took ${Date.now() - start} ms`);
});

test("100,000 requests of ~1000 tokens generate quickly", () => {
  const spec = makeSpec({
    aggregate_rate: 100,
    num_requests: 100_000,
    clients: [
      makeClient({
        rate_fraction: 1,
        arrival: { process: "poisson" },
        input_distribution: dist("gaussian", { mean: 800, std_dev: 100, min: 1, max: 2000 }),
        output_distribution: dist("exponential", { mean: 200 }),
      }),
    ],
  });
  const start = Date.now();
  const source = createRequestSource(spec);
  let tokens = 0;
  for (let r = source.next(); r !== null; r = source.next()) tokens += r.tokens.length;
  const ms = Date.now() - start;
  assert.ok(tokens > 90e6);
  // Dominated by one RNG draw per token; generous bound for slow CI machines.
  assert.ok(ms < 5000, `took ${ms} ms`);
});
