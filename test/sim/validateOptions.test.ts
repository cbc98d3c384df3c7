// The limit and pipeline checks of the configuration pipeline (src/sim/validateOptions.ts).
import { test } from "node:test";
import assert from "node:assert/strict";
import { MAX_INSTANCES, validatePipeline, validateLimits } from "../../src/sim/validateOptions.js";
import type { RunInput } from "../../src/config/runOptions.js";
import { cliError, options, userError } from "./helpers.js";

const limits = (input: RunInput = {}): void => {
  const { o, explicit } = options(input);
  validateLimits(o, explicit, o.totalKvBlocks);
};
const limitsError = (input: RunInput): string => userError(() => limits(input));
const pipelineError = (input: RunInput): string => userError(() => validatePipeline(options(input).o));

test("validateLimits and validatePipeline accept the defaults", () => {
  assert.doesNotThrow(() => limits());
  assert.doesNotThrow(() => validatePipeline(options().o));
});

test("validateLimits: counts must be positive, the long-prefill threshold non-negative", async () => {
  assert.equal(limitsError({ numInstances: 0 }), "--num-instances must be > 0, got 0");
  assert.equal(limitsError({ totalKvBlocks: -3 }), "--total-kv-blocks must be > 0, got -3");
  assert.equal(limitsError({ blockSizeInTokens: 0 }), "--block-size-in-tokens must be > 0, got 0");
  assert.equal(limitsError({ maxNumRunningReqs: 0 }), "--max-num-running-reqs must be > 0, got 0");
  assert.equal(limitsError({ maxNumScheduledTokens: -1 }), "--max-num-scheduled-tokens must be > 0, got -1");
  assert.equal(limitsError({ longPrefillTokenThreshold: -1 }), "--long-prefill-token-threshold must be >= 0, got -1");
  assert.doesNotThrow(() => limits({ longPrefillTokenThreshold: 0 }));
  // Checked in table order: the first bad value is reported.
  assert.equal(limitsError({ numInstances: 0, blockSizeInTokens: 0 }), "--num-instances must be > 0, got 0");
  assert.equal(limitsError({ numInstances: 0 }), await cliError(["--num-instances", "0"]));
});

test("validatePipeline: snapshot refresh interval", async () => {
  assert.equal(pipelineError({ snapshotRefreshInterval: -5 }), "--snapshot-refresh-interval must be >= 0, got -5");
  assert.equal(pipelineError({ snapshotRefreshInterval: -5 }), await cliError(["--snapshot-refresh-interval", "-5"]));
});

test("validateLimits names the newer flag when it set the batch limit", async () => {
  assert.equal(await cliError(["--max-num-seqs", "0"]), "--max-num-seqs must be > 0, got 0");
  assert.equal(await cliError(["--max-num-batched-tokens", "-2"]), "--max-num-batched-tokens must be > 0, got -2");
});

test("validateLimits: at most MAX_INSTANCES instances; an explicit horizon must be positive", () => {
  assert.doesNotThrow(() => limits({ numInstances: MAX_INSTANCES }));
  assert.match(limitsError({ numInstances: MAX_INSTANCES + 1 }), /^--num-instances must be <= 10000, got 10001 /);
  const horizon = (h: number): string => {
    const { o, explicit } = options({ horizon: h });
    return userError(() => validateLimits(o, explicit, o.totalKvBlocks));
  };
  assert.equal(horizon(0), "--horizon must be > 0, got 0");
  assert.equal(horizon(-1), "--horizon must be > 0, got -1");
  const { o, explicit } = options({ horizon: 1 });
  assert.doesNotThrow(() => validateLimits(o, explicit, o.totalKvBlocks));
});

test("validatePipeline: admission and routing latencies must not be negative", () => {
  assert.equal(pipelineError({ admissionLatency: -5 }), "--admission-latency must be >= 0, got -5");
  assert.equal(pipelineError({ routingLatency: -1 }), "--routing-latency must be >= 0, got -1");
  assert.doesNotThrow(() => validatePipeline(options({ admissionLatency: 0, routingLatency: 10 }).o));
});
