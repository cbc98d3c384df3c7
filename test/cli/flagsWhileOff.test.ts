// Every flag is validated whether or not its feature is on: a bad value is a mistake even where it
// has no effect (it would start to matter the day the feature is turned on, silently).

import { test } from "node:test";
import assert from "node:assert/strict";
import { cli } from "../helpers/cli.js";

const RUN = ["run", "--model", "meta-llama/llama-3.1-8b-instruct", "--num-requests", "2"];

const CASES: [string[], string][] = [
  [["--kv-transfer-bandwidth", "-1"], "--kv-transfer-bandwidth must be a finite value > 0, got -1"],
  [["--token-bucket-capacity", "-1"], "--token-bucket-capacity must be a finite value > 0, got -1"],
  [["--token-bucket-refill-rate", "-1"], "--token-bucket-refill-rate must be a finite value > 0, got -1"],
  [["--pd-transfer-bandwidth", "0"], "--pd-transfer-bandwidth must be a finite positive number, got 0.000000"],
  [
    ["--pd-transfer-base-latency", "-1"],
    "--pd-transfer-base-latency must be a finite non-negative number, got -1.000000",
  ],
  [["--pd-prefix-threshold", "-1"], "--pd-prefix-threshold must be >= 0, got -1"],
  [["--usage-limit-threshold", "2"], "--usage-limit-threshold must be in (0, 1], got 2"],
  [["--gaie-kv-threshold", "2"], "gaie_kv_threshold must be a finite value in (0, 1.0], got 2"],
  [["--gaie-qd-threshold", "-1"], "gaie_qd_threshold must be a finite value > 0, got -1"],
  [["--tier-shed-threshold", "-1"], "tier_shed_threshold must be >= 0, got -1"],
  [["--max-concurrency", "-1"], "--max-concurrency must be > 0, got -1"],
  [["--queue-depth-threshold", "-1"], "--queue-depth-threshold must be a finite value > 0, got -1"],
  [["--kv-cache-util-threshold", "2"], "--kv-cache-util-threshold must be in (0, 1], got 2"],
  [["--saturation-detector", "bogus"], 'Unknown saturation detector "bogus". Valid: concurrency, never, utilization'],
  [["--dispatch-order", "bogus"], "--dispatch-order must be 'fifo', 'priority', or 'slo-deadline', got \"bogus\""],
  [["--fairness-policy", "bogus"], "--fairness-policy must be 'global-strict' or 'round-robin', got \"bogus\""],
  [
    ["--slo-targets", "critical=abc"],
    '--slo-targets: target for "critical" must be a positive integer (µs), got "abc"',
  ],
  [["--max-gateway-queue-depth", "-1"], "--max-gateway-queue-depth must be >= 0, got -1"],
  [["--per-band-capacity", "-1"], "--per-band-capacity must be >= 0, got -1"],
  // With the feature on, a KV threshold above 1 was accepted too.
  [
    ["--flow-control", "--saturation-detector", "utilization", "--kv-cache-util-threshold", "2"],
    "--kv-cache-util-threshold must be in (0, 1], got 2",
  ],
  [
    ["--flow-control", "--saturation-detector", "concurrency", "--queue-depth-threshold", "0"],
    "--queue-depth-threshold must be a finite value > 0, got 0",
  ],
];

for (const [flags, message] of CASES) {
  test(`${flags.join(" ")}: refused`, async () => {
    const r = await cli([...RUN, ...flags]);
    assert.equal(r.code, 1, r.stderr.join("\n"));
    assert.equal(r.stdout, "");
    assert.deepEqual(
      r.stderr.filter((l) => l.startsWith("error:")),
      [`error: ${message}`],
    );
  });
}

test("the defaults of features that are off are still valid", async () => {
  const r = await cli(RUN);
  assert.equal(r.code, 0, r.stderr.join("\n"));
});
