// Properties of speculative decoding over random configurations (docs/speculative.md "Invariants"):
// with acceptance 0 every request still produces exactly its output and the run is slower; with
// acceptance 1 and k = 3 at batch 1 decode steps fall 4×; KV blocks are conserved; runs repeat.
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import type { Instance } from "../../src/instance/instance.js";
import type { Request } from "../../src/core/request.js";
import type { SimConfig } from "../../src/sim/simConfig.js";
import { req, run, simConfig } from "../helpers/sim.js";
import { FC_SEED } from "../helpers/fc.js";
import { specPlan, speculating } from "./helpers.js";

const workloadArb = fc.array(
  fc.record({
    at: fc.integer({ min: 0, max: 200000 }),
    input: fc.integer({ min: 1, max: 300 }),
    output: fc.integer({ min: 1, max: 60 }),
    slo: fc.constantFrom("", "critical", "sheddable", "batch"),
  }),
  { minLength: 1, maxLength: 30 },
);

const engineArb = fc.record({
  instances: fc.integer({ min: 1, max: 3 }),
  kvBlocks: fc.constantFrom(40, 120, 1000),
  cpuBlocks: fc.constantFrom(0, 0, 50),
  maxRunning: fc.constantFrom(2, 8, 64),
  budget: fc.constantFrom(64, 256, 2048),
  chunk: fc.constantFrom(0, 0, 48),
  preemption: fc.constantFrom("tail" as const, "priority" as const, "slo-aware" as const),
});

type Engine = {
  instances: number;
  kvBlocks: number;
  cpuBlocks: number;
  maxRunning: number;
  budget: number;
  chunk: number;
  preemption: "tail" | "priority" | "slo-aware";
};

function cfgOf(e: Engine): SimConfig {
  return simConfig({
    cluster: { numInstances: e.instances },
    kv: { totalKvBlocks: e.kvBlocks, kvCpuBlocks: e.cpuBlocks },
    engine: { maxRunning: e.maxRunning, maxScheduledTokens: e.budget, longPrefillThreshold: e.chunk },
    policy: { preemption: e.preemption },
  });
}

function requests(w: { at: number; input: number; output: number; slo: string }[]) {
  return w.map((r, k) => req(`request_${k}`, r.at, r.input, r.output, { sloClass: r.slo }));
}

/** KV conservation after a step: used + free = N, used = distinct blocks held, no scratch left. */
function checkKv(inst: Instance, problems: string[]): void {
  const kv = inst.kv;
  const free = kv.freeListIds();
  if (kv.scratchBlocks !== 0) problems.push(`${inst.id}: ${kv.scratchBlocks} scratch blocks after a step`);
  if (kv.used + free.length !== kv.totalBlocks)
    problems.push(`${inst.id}: used ${kv.used} + free ${free.length} != ${kv.totalBlocks}`);
  const held = new Set<number>();
  const holders: Request[] = [...inst.running];
  for (let i = 0; i < inst.waitQueue.length; i++) holders.push(inst.waitQueue.at(i));
  for (const r of holders) for (let i = 0; i < r.nBlocks; i++) held.add(r.blocks[i]!);
  if (held.size !== kv.used) problems.push(`${inst.id}: ${held.size} blocks held, ${kv.used} used`);
  for (const b of free) if (kv.refCountOf(b) !== 0) problems.push(`${inst.id}: free block ${b} referenced`);
  for (let i = 0; i < inst.waitQueue.length; i++) {
    const r = inst.waitQueue.at(i);
    if (r.specTokens !== 0) problems.push(`${r.id}: waits with ${r.specTokens} speculative tokens`);
  }
  for (const r of inst.running) {
    const end = r.inputLen + Math.max(r.outputLen, 1) - 1;
    if (r.pi > end) problems.push(`${r.id}: PI ${r.pi} past its last token ${end}`);
    if (r.specTokens !== 0) problems.push(`${r.id}: ${r.specTokens} speculative tokens left after the step`);
  }
}

test("acceptance 0: every request completes with its exact output, and the run is slower", () => {
  let slower = 0;
  fc.assert(
    fc.property(
      engineArb,
      workloadArb,
      fc.integer({ min: 1, max: 5 }),
      fc.constantFrom("ngram", "mtp"),
      (e, w, k, method) => {
        const base = cfgOf({ ...e, kvBlocks: 1000, cpuBlocks: 0 });
        const off = run(base, requests(w));
        const problems: string[] = [];
        const observer = { afterEvent() {}, afterStep: (inst: Instance) => checkKv(inst, problems) };
        const plan = specPlan({ method, num_speculative_tokens: k, acceptance_rate: 0 });
        const on = run({ ...base, features: [speculating(plan)] }, requests(w), { instanceObserver: observer });
        assert.deepEqual(problems, []);
        const a = off.metrics.cluster;
        const b = on.metrics.cluster;
        assert.equal(b.completed_requests, w.length);
        assert.equal(a.completed_requests, w.length);
        assert.equal(b.total_output_tokens, a.total_output_tokens, "the same tokens come out");
        assert.equal(b.speculative!.num_accepted_tokens, 0);
        const verified = b.speculative!.num_drafts > 0;
        // A request verifies proposals from its first decode on when it has at least 3 output tokens.
        assert.equal(
          verified,
          w.some((r) => r.output >= 3),
        );
        if (verified) {
          slower++;
          assert.ok(b.e2e_mean_ms > a.e2e_mean_ms, `e2e ${b.e2e_mean_ms} with speculation vs ${a.e2e_mean_ms} without`);
          assert.ok(b.vllm_estimated_duration_s >= a.vllm_estimated_duration_s);
        }
      },
    ),
    { seed: FC_SEED, numRuns: 120 },
  );
  assert.ok(slower > 60, `${slower} cases verified proposals`);
});

test("acceptance 1, k = 3, batch 1: decode steps per request fall 4x", () => {
  fc.assert(
    fc.property(
      fc.array(fc.record({ input: fc.integer({ min: 1, max: 400 }), output: fc.integer({ min: 1, max: 200 }) }), {
        minLength: 1,
        maxLength: 5,
      }),
      fc.constantFrom(0, 64),
      (w, chunk) => {
        // One request at a time: each arrives long after the one before has left.
        const reqs = () => w.map((r, i) => req(`request_${i}`, i * 1e9, r.input, r.output));
        const base = cfgOf({
          instances: 1,
          kvBlocks: 1000,
          cpuBlocks: 0,
          maxRunning: 1,
          budget: 2048,
          chunk,
          preemption: "tail",
        });
        const off = run(base, reqs());
        const on = run(
          {
            ...base,
            features: [
              speculating(specPlan({ method: "eagle", model: "head", num_speculative_tokens: 3, acceptance_rate: 1 })),
            ],
          },
          reqs(),
        );
        let plain = 0;
        let spec = 0;
        for (const r of w) {
          plain += r.output - 1;
          spec += Math.ceil((r.output - 1) / 4);
        }
        const saved = off.instances[0]!.stepCount - on.instances[0]!.stepCount;
        assert.equal(saved, plain - spec, `decode steps ${plain} without, ${spec} expected with`);
        assert.equal(on.metrics.cluster.total_output_tokens, off.metrics.cluster.total_output_tokens);
        const m = on.metrics.cluster.speculative!;
        assert.equal(m.num_accepted_tokens, m.num_draft_tokens);
      },
    ),
    { seed: FC_SEED, numRuns: 100 },
  );
});

test("KV blocks are conserved and every request is accounted for under KV pressure, preemption and offload", () => {
  let preempted = 0;
  fc.assert(
    fc.property(
      engineArb,
      workloadArb,
      fc.integer({ min: 1, max: 6 }),
      fc.double({ min: 0, max: 1, noNaN: true }),
      (e, w, k, a) => {
        const problems: string[] = [];
        const observer = { afterEvent() {}, afterStep: (inst: Instance) => checkKv(inst, problems) };
        const plan = specPlan({ method: "ngram", num_speculative_tokens: k, acceptance_rate: a });
        const res = run({ ...cfgOf(e), features: [speculating(plan)] }, requests(w), { instanceObserver: observer });
        assert.deepEqual(problems, []);
        const m = res.metrics.cluster;
        assert.equal(m.completed_requests + m.still_queued + m.still_running + m.dropped_unservable, w.length);
        preempted += m.preemption_count;
        const s = m.speculative!;
        assert.ok(s.num_accepted_tokens <= s.num_draft_tokens);
        for (const x of s.acceptance_rate_per_position) assert.ok(x >= 0 && x <= 1);
      },
    ),
    { seed: FC_SEED, numRuns: 150 },
  );
  assert.ok(preempted > 0, "some cases preempt");
});

test("runs with speculation repeat exactly", () => {
  fc.assert(
    fc.property(engineArb, workloadArb, fc.integer({ min: 1, max: 4 }), (e, w, k) => {
      const plan = () =>
        specPlan({
          method: "mtp",
          num_speculative_tokens: k,
          acceptance_rates: Array.from({ length: k }, (_, i) => 0.9 - 0.2 * i),
        });
      const a = run({ ...cfgOf(e), features: [speculating(plan())] }, requests(w));
      const b = run({ ...cfgOf(e), features: [speculating(plan())] }, requests(w));
      assert.equal(JSON.stringify(a.metrics), JSON.stringify(b.metrics));
    }),
    { seed: FC_SEED, numRuns: 60 },
  );
});
