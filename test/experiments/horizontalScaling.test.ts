// The horizontal-scaling experiment as a user runs it: 2, 4, 8 instances, least-loaded routing.
// A seed-era study: its rates were chosen for the 2025 blackbox coefficients, so it pins them.
import { test } from "node:test";
import assert from "node:assert/strict";
import { cli, clusterBlock } from "../helpers/cli.js";

async function ttftP99(rate: number, instances: number, seed: number): Promise<number> {
  const r = await cli([
    "run",
    "--model",
    "meta-llama/llama-3.1-8b-instruct",
    "--latency-model",
    "blackbox",
    "--rate",
    String(rate),
    "--num-requests",
    "500",
    "--num-instances",
    String(instances),
    "--routing-policy",
    "least-loaded",
    "--scheduler",
    "fcfs",
    "--priority-policy",
    "constant",
    "--admission-policy",
    "always-admit",
    "--seed",
    String(seed),
  ]);
  assert.equal(r.code, 0, r.stderr.join("\n"));
  return clusterBlock(r.stdout)["ttft_p99_ms"] as number;
}

for (const seed of [42, 123, 456]) {
  test(`scaling out cuts TTFT p99 at a saturating rate (seed ${seed})`, async () => {
    const [p2, p4, p8] = [await ttftP99(1000, 2, seed), await ttftP99(1000, 4, seed), await ttftP99(1000, 8, seed)];
    const r42 = p4 / p2;
    const r84 = p8 / p4;
    assert.ok(r42 < 0.8, `4/2 ratio ${r42} should be clearly below 1`);
    assert.ok(r84 < 0.8, `8/4 ratio ${r84} should be clearly below 1`);
    assert.ok(r84 < r42, `ratios should decrease: 4/2 ${r42}, 8/4 ${r84}`);
  });

  test(`scaling out changes little below saturation (seed ${seed})`, async () => {
    const r84 = (await ttftP99(100, 8, seed)) / (await ttftP99(100, 4, seed));
    assert.ok(r84 > 0.8 && r84 < 1.2, `8/4 ratio at rate 100 is ${r84}, expected near 1`);
  });
}
