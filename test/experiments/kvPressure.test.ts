// The reasoning workload under KV pressure (single instance), with and without a CPU tier.
import { test } from "node:test";
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { simulate } from "../../src/sim/simulate.js";
import { generateAll, loadWorkloadSpec } from "../../src/workload/index.js";
import { cli, clusterBlock } from "../helpers/cli.js";

const SPEC = fileURLToPath(new URL("../../../examples/reasoning-multiturn.yaml", import.meta.url));
const BLOCKS = [5000, 3000, 2000, 1500, 1200, 1000, 800, 600, 400, 100];
const SEEDS = [42, 123, 456];
const TIER = { kvCpuBlocks: 3000, kvOffloadThreshold: 0.8, kvTransferBandwidth: 10, kvTransferBaseLatency: 100 };

async function runAt(blocks: number, seed: number, tiered: boolean) {
  return simulate({
    model: "meta-llama/llama-3.1-8b-instruct",
    workloadSpec: SPEC,
    maxNumRunningReqs: 32,
    maxNumScheduledTokens: 2048,
    blockSizeInTokens: 16,
    totalKvBlocks: blocks,
    seed,
    ...(tiered ? TIER : {}),
  });
}

for (const tiered of [false, true]) {
  test(`every KV-pressure run ends with requests conserved${tiered ? " (CPU tier)" : ""}`, async () => {
    for (const seed of SEEDS) {
      const reqs = generateAll(loadWorkloadSpec(SPEC), { seed: BigInt(seed) });
      const tooBig = reqs.filter((r) => Math.ceil(r.inputLen / 16) > 100).length;
      assert.ok(tooBig > 0);
      for (const blocks of BLOCKS) {
        const r = await runAt(blocks, seed, tiered);
        const c = r.metrics.cluster;
        assert.equal(c.injected_requests, reqs.length);
        assert.equal(c.completed_requests + c.dropped_unservable, reqs.length, "every non-dropped request completes");
        assert.equal(c.still_queued + c.still_running, 0);
        if (blocks === 100) {
          // Only the rounds whose prompts need more than 100 blocks are unservable.
          assert.equal(c.dropped_unservable, tooBig, `blocks=100 seed=${seed}`);
        } else {
          assert.equal(c.dropped_unservable, 0);
        }
        if (blocks <= 1200) assert.ok(c.preemption_count > 0, "tight KV preempts");
      }
    }
  });
}

test("a CPU tier offloads and reloads blocks and changes the results", async () => {
  let changed = 0;
  for (const blocks of [1500, 1000, 400]) {
    const single = await runAt(blocks, 42, false);
    const tier = await runAt(blocks, 42, true);
    const t = tier.metrics.kv.tiered!;
    assert.ok(t.offloads > 0 && t.reloads > 0, `offloads ${t.offloads}, reloads ${t.reloads}`);
    assert.equal(single.metrics.kv.tiered, null);
    if (tier.metrics.kv.cacheHitRate !== single.metrics.kv.cacheHitRate) changed++;
  }
  assert.equal(changed, 3);
  const out = await cli([
    "run",
    "--model",
    "meta-llama/llama-3.1-8b-instruct",
    "--workload-spec",
    SPEC,
    "--total-kv-blocks",
    "1000",
    "--max-num-running-reqs",
    "32",
    "--kv-cpu-blocks",
    "3000",
    "--kv-offload-threshold",
    "0.8",
    "--kv-transfer-bandwidth",
    "10",
    "--kv-transfer-base-latency",
    "100",
  ]);
  assert.equal(out.code, 0);
  assert.match(out.stdout, /KV Offloads: [1-9]\d*\nKV Reloads: [1-9]\d*\n/);
});

test("roofline run works offline from the bundled model config", async () => {
  const r = await cli([
    "run",
    "--model",
    "meta-llama/llama-3.1-8b-instruct",
    "--roofline",
    "--hardware",
    "H100",
    "--tp",
    "2",
  ]);
  assert.equal(r.code, 0, r.stderr.join("\n"));
  const b = clusterBlock(r.stdout);
  assert.equal(b["completed_requests"], 100);
  assert.ok((b["ttft_mean_ms"] as number) > 0);
});
