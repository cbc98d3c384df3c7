// Properties over random LoRA configurations (docs/lora.md "Invariants"): every request is
// accounted for, a resident set never exceeds its capacity, no request runs without its adapter,
// and pins balance.
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import type { Instance } from "../../src/instance/instance.js";
import { req, run, simConfig } from "../helpers/sim.js";
import { FC_SEED } from "../helpers/fc.js";
import { loraConfig, withLora } from "./helpers.js";
import { QUEUED, RUNNING } from "../../src/core/request.js";

const caseArb = fc.record({
  ranks: fc.array(fc.constantFrom(4, 8, 16, 32), { minLength: 1, maxLength: 6 }),
  capacity: fc.integer({ min: 1, max: 4 }),
  base: fc.integer({ min: 0, max: 3000 }),
  instances: fc.integer({ min: 1, max: 3 }),
  affinity: fc.boolean(),
  kvBlocks: fc.constantFrom(60, 200, 1000),
  requests: fc.array(
    fc.record({
      at: fc.integer({ min: 0, max: 20000 }),
      adapter: fc.integer({ min: -1, max: 5 }),
      input: fc.integer({ min: 1, max: 200 }),
      output: fc.integer({ min: 1, max: 40 }),
      timeout: fc.constantFrom(0, 0, 5000, 50000),
    }),
    { minLength: 1, maxLength: 40 },
  ),
});

test("LoRA invariants hold for random configurations", () => {
  const seen = { loads: 0, evictions: 0 };
  fc.assert(
    fc.property(caseArb, (c) => {
      const ids = c.ranks.map((_, i) => `ad${i}`);
      const lora = loraConfig(Object.fromEntries(ids.map((id, i) => [id, c.ranks[i]!])), {
        capacity: c.capacity,
        base: c.base,
        footprint: 2e6,
        bandwidth: 2e6,
        tiers: [
          { rank: 8, k6: 0.02, k7: 1 },
          { rank: 16, k6: 0.035, k7: 1 },
        ],
      });
      const base = simConfig({
        kv: { totalKvBlocks: c.kvBlocks, blockSize: 16 },
        cluster: {
          numInstances: c.instances,
          routing: c.affinity
            ? {
                policy: "weighted",
                scorers: [
                  { name: "lora-affinity", weight: 2 },
                  { name: "queue-depth", weight: 1 },
                ],
              }
            : {},
        },
      });
      const problems: string[] = [];
      const observer = {
        afterEvent() {},
        afterStep(inst: Instance) {
          const l = inst.lora!;
          if (l.resident.size > lora.capacity)
            problems.push(`${inst.id}: ${l.resident.size} resident > ${lora.capacity}`);
          for (const r of inst.running) {
            if (r.adapter !== "" && r.numNewTokens > 0 && !l.resident.has(r.adapter))
              problems.push(`${r.id} runs without ${r.adapter}`);
          }
        },
      };
      const reqs = c.requests.map((r, k) =>
        req(`request_${k}`, r.at, r.input, r.output, {
          adapter: r.adapter < 0 ? "" : ids[r.adapter % ids.length]!,
          deadline: r.timeout > 0 ? r.at + r.timeout : 0,
        }),
      );
      const res = run({ ...base, features: [withLora(lora)] }, reqs, { instanceObserver: observer });
      assert.deepEqual(problems, []);
      const m = res.metrics.cluster;
      // Conservation: every request completed, timed out, was dropped or is still queued or running.
      const timedOut = res.instances.reduce((s, i) => s + i.timedOut, 0);
      assert.equal(
        m.completed_requests + m.still_queued + m.still_running + m.dropped_unservable + timedOut,
        reqs.length,
      );
      for (const inst of res.instances) {
        const l = inst.lora!;
        // Pins balance: one per request holding one, and only requests still in the instance hold one.
        assert.equal(l.resident.totalPins(), l.pinnedRequests);
        const inside =
          inst.running.length +
          inst.waitQueue.toArray([]).filter((r) => r.state === QUEUED && r.schedDelay >= 0).length;
        assert.ok(l.pinnedRequests <= inside, `${inst.id}: ${l.pinnedRequests} pins for ${inside} admitted requests`);
        if (inst.running.length === 0 && inst.waitQueue.length === 0) assert.equal(l.pinnedRequests, 0);
        for (const r of inst.running) assert.equal(r.state, RUNNING);
      }
      // What is resident is what was loaded and not evicted.
      for (const inst of res.instances) {
        let loads = 0;
        let evictions = 0;
        for (const v of inst.lora!.counts.values()) {
          loads += v.loads;
          evictions += v.evictions;
        }
        assert.equal(inst.lora!.resident.size, loads - evictions);
        seen.loads += loads;
        seen.evictions += evictions;
      }
      const adapters = m.adapters ?? {};
      for (const [id, a] of Object.entries(adapters)) {
        assert.ok(ids.includes(id));
        assert.ok(a.ttft_p50_us <= a.ttft_p99_us);
      }
    }),
    { seed: FC_SEED, numRuns: 150 },
  );
  assert.ok(seen.loads > 0 && seen.evictions > 0, "the cases load and evict adapters");
});
