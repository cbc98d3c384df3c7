// The KV cache's CPU tier as a feature (src/features/kvCpuTier/): its flags are checked whether or
// not it is on, and with CPU blocks every instance gets the tiered store.
import { test } from "node:test";
import assert from "node:assert/strict";
import { kvCpuTier } from "../../src/features/kvCpuTier/kvCpuTier.js";
import { TieredKvStore } from "../../src/kv/tieredKvStore.js";
import { KvStore } from "../../src/kv/kvStore.js";
import { simulate } from "../../src/sim/simulate.js";
import { silentLogger } from "../../src/util/log.js";
import { cliError, userError } from "../sim/helpers.js";
import { cli } from "../helpers/cli.js";

const CHECK = { explicit: new Set<string>(), log: silentLogger };

const DEFAULTS = { kvCpuBlocks: 0, kvOffloadThreshold: 0.9, kvTransferBandwidth: 100, kvTransferBaseLatency: 0 };
const tierError = (over: Partial<typeof DEFAULTS>): string =>
  userError(() => kvCpuTier.validate!({ ...DEFAULTS, ...over }, CHECK));

test("tier, transfer and threshold ranges, with the command line's message", async () => {
  assert.equal(tierError({ kvCpuBlocks: -1 }), "--kv-cpu-blocks must be >= 0, got -1");
  assert.equal(
    tierError({ kvOffloadThreshold: 1.5 }),
    "--kv-offload-threshold must be a finite value in [0, 1], got 1.5",
  );
  assert.equal(
    tierError({ kvOffloadThreshold: NaN }),
    "--kv-offload-threshold must be a finite value in [0, 1], got NaN",
  );
  assert.equal(tierError({ kvTransferBaseLatency: -2 }), "--kv-transfer-base-latency must be >= 0, got -2");
  assert.equal(tierError({ kvOffloadThreshold: 2 }), await cliError(["--kv-offload-threshold", "2"]));
  assert.doesNotThrow(() => kvCpuTier.validate!(DEFAULTS, CHECK));
});

test("the transfer bandwidth is checked with or without a CPU tier", async () => {
  const message = "--kv-transfer-bandwidth must be a finite value > 0, got 0";
  assert.equal(tierError({ kvTransferBandwidth: 0 }), message);
  assert.equal(tierError({ kvCpuBlocks: 10, kvTransferBandwidth: 0 }), message);
  assert.equal(
    tierError({ kvCpuBlocks: 10, kvTransferBandwidth: Infinity }),
    "--kv-transfer-bandwidth must be a finite value > 0, got Infinity",
  );
  assert.equal(await cliError(["--kv-transfer-bandwidth", "0"]), message);
});

test("with CPU blocks every instance has the tiered store; without, the single-tier one", async () => {
  const base = { model: "meta-llama/llama-3.1-8b-instruct", numInstances: 2, numRequests: 20, rate: 10, seed: 3 };
  const tiered = await simulate({ ...base, kvCpuBlocks: 500 }, { logger: silentLogger });
  assert.ok(tiered.run.instances.every((i) => i.kv instanceof TieredKvStore));
  assert.equal((tiered.run.instances[0]!.kv as TieredKvStore).cpuCapacity, 500);
  const single = await simulate(base, { logger: silentLogger });
  assert.ok(single.run.instances.every((i) => i.kv instanceof KvStore && !(i.kv instanceof TieredKvStore)));
  assert.equal(single.metrics.cluster.completed_requests, tiered.metrics.cluster.completed_requests);
});

test("--help keeps the flags with BLIS's spelling of the bandwidth default", async () => {
  const help = await cli(["run", "--help"]);
  assert.match(help.stdout, /--kv-cpu-blocks <int64>\s+CPU-tier KV blocks; 0 = single tier \(default 0\)/);
  assert.match(help.stdout, /--kv-transfer-bandwidth <float>\s+.*\(default 100\.0\)/);
});
