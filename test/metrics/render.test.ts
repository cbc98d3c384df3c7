// The printed cluster block: BLIS's block with completions; without any, null for each latency
// that has no sample (docs/behavior.md "The metrics block", C14).
import { test } from "node:test";
import assert from "node:assert/strict";
import { printedClusterBlock, renderMetricBlocks } from "../../src/metrics/render.js";
import { req, run, simConfig } from "../helpers/sim.js";

test("with completions the printed block is the metrics block itself", () => {
  const r = run(simConfig({ alpha: [0, 0, 0], beta: [1000, 1, 1] }), [req("a", 0, 32, 4)]);
  assert.equal(printedClusterBlock(r.metrics), r.metrics.cluster);
  assert.equal(renderMetricBlocks(r.metrics).match(/=== Simulation Metrics ===/g)?.length, 1);
});

test("without completions: null where no request has a value, key order kept", () => {
  // 16-token prefill chunks of a 64-token prompt, 1000-tick steps, the horizon inside the first
  // step: the request is running, with a scheduling delay but no first token yet.
  const cfg = simConfig({ alpha: [0, 0, 0], beta: [1000, 0, 0], horizon: 500, engine: { maxScheduledTokens: 16 } });
  const r = run(cfg, [req("a", 0, 64, 4)]);
  const b = printedClusterBlock(r.metrics);
  assert.deepEqual(Object.keys(b), Object.keys(r.metrics.cluster));
  assert.equal(b.completed_requests, 0);
  assert.equal(b.still_running, 1);
  assert.equal(b.e2e_p99_ms, null);
  assert.equal(b.itl_mean_ms, null);
  assert.equal(b.ttft_mean_ms, null);
  assert.equal(b.scheduling_delay_p99_ms, 0);
  assert.equal(r.metrics.cluster.e2e_p99_ms, 0, "the results-file block keeps BLIS's 0");

  // Report data saved before the sample counts existed: a 0 latency is read as "no value".
  const { clusterSamples: _omitted, ...old } = r.metrics;
  const fromOld = printedClusterBlock(old);
  assert.equal(fromOld.ttft_mean_ms, null);
  assert.equal(fromOld.scheduling_delay_p99_ms, null);
});
