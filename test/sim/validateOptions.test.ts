// The limit and KV checks of the configuration pipeline (src/sim/validateOptions.ts).
import { test } from "node:test";
import assert from "node:assert/strict";
import { validateKv, validateLimits } from "../../src/sim/validateOptions.js";
import type { RunInput } from "../../src/config/runOptions.js";
import { cliError, options, userError } from "./helpers.js";

const limitsError = (input: RunInput): string => userError(() => validateLimits(options(input).o));
const kvError = (input: RunInput): string => userError(() => validateKv(options(input).o));

test("validateLimits and validateKv accept the defaults", () => {
  assert.doesNotThrow(() => validateLimits(options().o));
  assert.doesNotThrow(() => validateKv(options().o));
});

test("validateLimits: counts must be positive, the long-prefill threshold non-negative", async () => {
  assert.equal(limitsError({ numInstances: 0 }), "--num-instances must be > 0, got 0");
  assert.equal(limitsError({ totalKvBlocks: -3 }), "--total-kv-blocks must be > 0, got -3");
  assert.equal(limitsError({ blockSizeInTokens: 0 }), "--block-size-in-tokens must be > 0, got 0");
  assert.equal(limitsError({ maxNumRunningReqs: 0 }), "--max-num-running-reqs must be > 0, got 0");
  assert.equal(limitsError({ maxNumScheduledTokens: -1 }), "--max-num-scheduled-tokens must be > 0, got -1");
  assert.equal(limitsError({ longPrefillTokenThreshold: -1 }), "--long-prefill-token-threshold must be >= 0, got -1");
  assert.doesNotThrow(() => validateLimits(options({ longPrefillTokenThreshold: 0 }).o));
  // Checked in table order: the first bad value is reported.
  assert.equal(limitsError({ numInstances: 0, blockSizeInTokens: 0 }), "--num-instances must be > 0, got 0");
  assert.equal(limitsError({ numInstances: 0 }), await cliError(["--num-instances", "0"]));
});

test("validateKv: tier, transfer and snapshot ranges", async () => {
  assert.equal(kvError({ kvCpuBlocks: -1 }), "--kv-cpu-blocks must be >= 0, got -1");
  assert.equal(kvError({ kvOffloadThreshold: 1.5 }), "--kv-offload-threshold must be a finite value in [0, 1], got 1.5");
  assert.equal(kvError({ kvOffloadThreshold: NaN }), "--kv-offload-threshold must be a finite value in [0, 1], got NaN");
  assert.equal(kvError({ kvTransferBaseLatency: -2 }), "--kv-transfer-base-latency must be >= 0, got -2");
  assert.equal(kvError({ snapshotRefreshInterval: -5 }), "--snapshot-refresh-interval must be >= 0, got -5");
  assert.equal(kvError({ kvOffloadThreshold: 2 }), await cliError(["--kv-offload-threshold", "2"]));
});

test("validateKv checks the transfer bandwidth only when a CPU tier exists", () => {
  assert.doesNotThrow(() => validateKv(options({ kvTransferBandwidth: 0 }).o));
  assert.equal(kvError({ kvCpuBlocks: 10, kvTransferBandwidth: 0 }), "--kv-transfer-bandwidth must be a finite value > 0, got 0");
  assert.equal(
    kvError({ kvCpuBlocks: 10, kvTransferBandwidth: Infinity }),
    "--kv-transfer-bandwidth must be a finite value > 0, got Infinity",
  );
});
