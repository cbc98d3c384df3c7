// Statistical fidelity against the reference simulator: for each of the five golden
// configurations, our means over seeds 1-20 must match the reference means over the same seeds
// (BLIS's golden runs; the generators differ, so distributions are compared, not single runs).
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import { cli, clusterBlock, splitArgs } from "../helpers/cli.js";

interface GoldenConfig {
  command: string;
  model: string;
  mean_over_seeds: Record<string, number>;
}

const golden = JSON.parse(
  fs.readFileSync(new URL("../../../test/fixtures/golden-multiseed.json", import.meta.url), "utf8"),
) as {
  configs: GoldenConfig[];
};

const WITHIN_5 = ["ttft_mean_ms", "e2e_mean_ms", "itl_mean_ms", "responses_per_sec"];
const WITHIN_10 = ["ttft_p99_ms", "e2e_p99_ms"];

golden.configs.forEach((cfg, i) => {
  test(`golden configuration #${i + 1} (${cfg.model}) matches the reference means over seeds 1-20`, async () => {
    const sums: Record<string, number> = {};
    for (let seed = 1; seed <= 20; seed++) {
      const args = splitArgs(cfg.command.replace(/--seed S$/, `--seed ${seed}`)).slice(1);
      const r = await cli(args);
      assert.equal(r.code, 0, r.stderr.join("\n"));
      const b = clusterBlock(r.stdout);
      for (const k of [...WITHIN_5, ...WITHIN_10, "completed_requests"]) sums[k] = (sums[k] ?? 0) + (b[k] as number);
    }
    const report: string[] = [];
    for (const k of [...WITHIN_5, ...WITHIN_10]) {
      const ours = sums[k]! / 20;
      const ref = cfg.mean_over_seeds[k]!;
      const rel = Math.abs(ours - ref) / ref;
      report.push(`${k}: ours ${ours.toFixed(4)} ref ${ref.toFixed(4)} (${(rel * 100).toFixed(2)}%)`);
      const tol = WITHIN_5.includes(k) ? 0.05 : 0.1;
      assert.ok(rel <= tol, `${k} off by ${(rel * 100).toFixed(2)}% (limit ${tol * 100}%)\n${report.join("\n")}`);
    }
    assert.equal(sums["completed_requests"]! / 20, cfg.mean_over_seeds["completed_requests"]);
    process.stderr.write(`golden #${i + 1}\n  ${report.join("\n  ")}\n`);
  });
});
