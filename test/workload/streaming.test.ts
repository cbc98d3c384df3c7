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
});

// Generation speed is measured by `npm run bench`, not here: this checks the long stream's content.
test("100,000 requests of ~1000 tokens stream out with their token counts", () => {
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
  const source = createRequestSource(spec);
  let tokens = 0;
  let count = 0;
  for (let r = source.next(); r !== null; r = source.next()) {
    tokens += r.tokens.length;
    count++;
  }
  assert.equal(count, 100_000);
  // Means 800 + 200 tokens per request, both clamped at 1 and the prompt at 2,000.
  assert.ok(tokens > 95e6 && tokens < 105e6, `${tokens} tokens`);
});
