// Between cluster events the cluster runs one instance's events back to back; runs observed event
// by event (any cluster observer turns that off) must give the same results and log lines.
import { test } from "node:test";
import assert from "node:assert/strict";
import { runCluster } from "../../src/sim/runCluster.js";
import { ArrayRequestSource } from "../../src/core/workloadRequest.js";
import { Logger } from "../../src/util/log.js";
import { renderMetricBlocks } from "../../src/metrics/render.js";
import { req, simConfig } from "../helpers/sim.js";

function workload(): ReturnType<typeof req>[] {
  const out: ReturnType<typeof req>[] = [];
  // Bursts a few seconds apart: between bursts the instances run many steps with no cluster event.
  // With 8 blocks of 16 tokens, 32 + 33 tokens fill a request's last block at the final token,
  // which then often finds no free block (a debug line from a step); 300 tokens never fit.
  for (let i = 0; i < 60; i++) {
    const burst = Math.floor(i / 20);
    const input = i % 11 === 0 ? 300 : 32;
    out.push(req(`request_${i}`, burst * 3_000_000 + (i % 20) * 50, input, 33));
  }
  return out;
}

function runOnce(observed: boolean): { lines: string[]; stdout: string; clocks: number } {
  const lines: string[] = [];
  const log = new Logger("debug", (l) => lines.push(l));
  let clocks = 0;
  const cfg = simConfig({ kv: { totalKvBlocks: 8, blockSize: 16 }, cluster: { numInstances: 4 } });
  const hooks = observed ? { clusterObserver: { onRouted: () => {}, onClock: () => void clocks++ } } : {};
  const r = runCluster(cfg, new ArrayRequestSource(workload()), log, hooks);
  return { lines, stdout: renderMetricBlocks(r.metrics), clocks };
}

test("instances run in a row between cluster events: same metrics and log lines, in event order", () => {
  const batched = runOnce(false);
  const stepwise = runOnce(true);
  assert.ok(stepwise.clocks > 1000, "the observed run goes event by event");
  assert.ok(batched.lines.some((l) => l.includes("unservable")));
  assert.ok(batched.lines.filter((l) => l.includes("final token")).length > 10);
  assert.equal(batched.stdout, stepwise.stdout);
  assert.deepEqual(batched.lines, stepwise.lines);
});
