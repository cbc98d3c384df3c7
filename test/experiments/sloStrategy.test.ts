// SLO-aware strategy extensions on the research workload, and the extensions' off-by-default rule.
import { test } from "node:test";
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { simulate } from "../../src/sim/simulate.js";
import { renderStdout } from "../../src/sim/renderStdout.js";
import type { RunInput } from "../../src/config/runOptions.js";
import { record, req, run, simConfig } from "../helpers/sim.js";

const SPEC = fileURLToPath(new URL("../../../examples/strategy-workload.yaml", import.meta.url));
// A seed-era study: the workload's load was sized for the 2025 blackbox coefficients.
const BASE: RunInput = {
  model: "meta-llama/llama-3.1-8b-instruct",
  latencyModel: "blackbox",
  workloadSpec: SPEC,
  numInstances: 8,
  routingPolicy: "weighted",
  routingScorers: "prefix-affinity:3,queue-depth:2,kv-utilization:2",
  scheduler: "fcfs",
  priorityPolicy: "constant",
  admissionPolicy: "always-admit",
  kvCpuBlocks: 44000,
  kvOffloadThreshold: 0.9,
  longPrefillTokenThreshold: 256,
};

async function criticalTtftP99(extra: RunInput): Promise<number> {
  let sum = 0;
  for (const seed of [42, 43, 44]) {
    const r = await simulate({ ...BASE, ...extra, seed });
    sum += r.metrics.perSlo.find((e) => e.sloClass === "critical")!.ttft.p99;
  }
  return sum / 3;
}

test("slo-tiered priority with priority-fcfs cuts critical TTFT p99; per-class prefill thresholds cut it further", async () => {
  const baseline = await criticalTtftP99({});
  const tiered = await criticalTtftP99({ priorityPolicy: "slo-tiered", scheduler: "priority-fcfs" });
  const thresholds = await criticalTtftP99({
    priorityPolicy: "slo-tiered",
    scheduler: "priority-fcfs",
    sloPrefillThresholds: "critical:0,sheddable:256",
  });
  assert.ok(tiered < 0.8 * baseline, `tiered ${tiered} vs baseline ${baseline}`);
  assert.ok(thresholds < tiered, `thresholds ${thresholds} vs tiered ${tiered}`);
});

test("slo-gated admission sheds only sheddable requests", async () => {
  const r = await simulate({ ...BASE, admissionPolicy: "slo-gated", admissionLoadThreshold: 50, seed: 42 });
  assert.ok(r.metrics.anomalies.rejected > 0);
  const n = (cls: string) => r.metrics.perSlo.find((e) => e.sloClass === cls)!.ttft.count;
  const full = await simulate({ ...BASE, seed: 42 });
  const m = (cls: string) => full.metrics.perSlo.find((e) => e.sloClass === cls)!.ttft.count;
  assert.equal(n("critical"), m("critical"));
  assert.equal(n("standard"), m("standard"));
  assert.equal(m("sheddable") - n("sheddable"), r.metrics.anomalies.rejected);
});

test("extension settings at their defaults leave stdout unchanged", async () => {
  const plain = await simulate({
    model: "meta-llama/llama-3.1-8b-instruct",
    numRequests: 60,
    rate: 30,
    numInstances: 2,
  });
  const explicit = await simulate({
    model: "meta-llama/llama-3.1-8b-instruct",
    numRequests: 60,
    rate: 30,
    numInstances: 2,
    admissionLoadThreshold: 50,
    sloCacheWeights: "critical:0.25,standard:0.5,sheddable:0.75",
    sloBaseCritical: 10,
    sloBaseStandard: 5,
    sloBaseSheddable: 1,
    sloAgeWeight: 0.00001,
    sloThresholdCritical: 0,
    sloThresholdStandard: 100000,
    sloThresholdSheddable: 100000,
    priorityBridge: "none",
    sloPrefillThresholds: "",
    preemptionPolicy: "tail",
  });
  const a = renderStdout(plain);
  const b = renderStdout(explicit);
  assert.equal(a.head + a.tail, b.head + b.tail);
});

test("per-class prefill threshold: a critical prompt is not chunked while others are", () => {
  const cfg = simConfig({
    beta: [1000, 1, 1],
    engine: { longPrefillThreshold: 64, sloPrefillThresholds: new Map([["critical", 0]]) },
  });
  const r = run(cfg, [
    req("c", 0, 256, 2, { sloClass: "critical" }),
    req("s", 100000, 256, 2, { sloClass: "standard" }),
  ]);
  // Critical: one 256-token prefill step (1000 + 256 ticks). Standard: four 64-token chunks.
  assert.equal(record(r, "c").ttft, 1256);
  assert.equal(record(r, "s").ttft, 4 * 1064);
});

test("slo-aware preemption evicts the lowest tier first, tail mode the last admitted", () => {
  // 5 blocks of 4 tokens; three 4-token prompts take 3. In the first decode step crit and shed
  // take the last two blocks, so std's decode needs a victim.
  const mk = (policy: "tail" | "slo-aware") =>
    run(simConfig({ beta: [1000, 1, 1], kv: { blockSize: 4, totalKvBlocks: 5 }, policy: { preemption: policy } }), [
      req("crit", 0, 4, 8, { sloClass: "critical" }),
      req("shed", 1, 4, 3, { sloClass: "sheddable" }),
      req("std", 2, 4, 3, { sloClass: "standard" }),
    ]);
  const tail = mk("tail");
  const aware = mk("slo-aware");
  // A preempted request prefills again, so its (overwritten) TTFT comes later than its peer's.
  assert.equal(tail.metrics.cluster.preemption_count, 1);
  assert.equal(aware.metrics.cluster.preemption_count, 1);
  assert.ok(
    record(tail, "std").ttft > record(tail, "shed").ttft + 1000,
    "tail mode: std (last admitted) evicts itself",
  );
  assert.ok(
    record(aware, "shed").ttft > record(aware, "std").ttft + 1000,
    "slo-aware: the sheddable request is the victim",
  );
  for (const r of [tail, aware]) assert.equal(r.metrics.cluster.completed_requests, 3);
});
