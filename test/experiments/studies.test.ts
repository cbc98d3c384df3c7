// Reduced versions of the closed-loop studies in examples/experiments (README "concurrency-sweep"
// and "prefix-precise"), asserting the physical relations their full runs show.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { simulate } from "../../src/sim/simulate.js";
import { silentLogger } from "../../src/util/log.js";

const path = (p: string) => fileURLToPath(new URL(`../../../${p}`, import.meta.url));
const MODEL = "meta-llama/llama-3.1-8b-instruct";

test("concurrency sweep: throughput rises then flattens with concurrency while E2E grows", async () => {
  const thr: number[] = [];
  const e2e: number[] = [];
  const users = [1, 4, 16, 64, 256];
  for (const c of users) {
    const res = await simulate(
      {
        model: MODEL,
        concurrency: c,
        numRequests: 800,
        promptTokens: 512,
        promptTokensStdev: 128,
        outputTokens: 256,
        outputTokensStdev: 64,
      },
      { logger: silentLogger },
    );
    thr.push(res.metrics.cluster.responses_per_sec);
    e2e.push(res.metrics.cluster.e2e_mean_ms);
  }
  for (let k = 1; k < users.length; k++) {
    assert.ok(thr[k]! > thr[k - 1]!, `throughput rises: ${thr.join(", ")}`);
    assert.ok(e2e[k]! > e2e[k - 1]!, `E2E grows: ${e2e.join(", ")}`);
  }
  const gains = thr.slice(1).map((t, k) => t / thr[k]!);
  for (let k = 1; k < gains.length; k++)
    assert.ok(gains[k]! < gains[k - 1]!, `each ×4 of users gains less: ${gains.join(", ")}`);
  assert.ok(gains[0]! > 3.5, "a few users scale almost linearly");
  assert.ok(gains.at(-1)! < 2.5, "the last ×4 of users is far from linear: past the knee");
});

test("precise-prefix-cache vs prefix-affinity on multi-turn chat: live KV signals hit at least as often; a long delay erodes them", async () => {
  const plan = parse(fs.readFileSync(path("examples/experiments/prefix-precise.yaml"), "utf8")) as {
    base: { workload_spec: { num_requests: number } };
  };
  const spec = { ...plan.base.workload_spec, num_requests: 1500 };
  const run = async (scorers: string, delayUs?: number) => {
    const res = await simulate(
      {
        model: MODEL,
        numInstances: 8,
        routingPolicy: "weighted",
        routingScorers: scorers,
        workloadSpecObject: spec,
        ...(delayUs !== undefined ? { cacheSignalDelay: delayUs } : {}),
      },
      { logger: silentLogger },
    );
    return { hit: res.metrics.kv.cacheHitRate, ttft: res.metrics.cluster.ttft_mean_ms };
  };
  const affinity = await run("prefix-affinity:3,queue-depth:2,kv-utilization:2");
  const live = await run("precise-prefix-cache:3,queue-depth:2,kv-utilization:2", 0);
  const late = await run("precise-prefix-cache:3,queue-depth:2,kv-utilization:2", 1_000_000);
  assert.ok(live.hit >= affinity.hit, `precise (delay 0) ${live.hit} vs prefix-affinity ${affinity.hit}`);
  assert.ok(late.hit < live.hit, `a 1 s delay erodes the hit rate: ${late.hit} vs ${live.hit}`);
  assert.ok(late.ttft > live.ttft, `and TTFT: ${late.ttft} vs ${live.ttft}`);
});
