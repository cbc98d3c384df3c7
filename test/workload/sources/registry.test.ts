// The workload-source registry (src/workload/sources/registry.ts) and the "one file plus one
// registration line" promise of docs/extending.md "Adding a workload source": a source registered at
// run time gets its flag, its option and its place in the precedence order without any other file
// being edited, and the requests it produces are the ones simulated.
import { test } from "node:test";
import assert from "node:assert/strict";
import { z } from "zod";
import "../../../src/workload/sources/builtins.js";
import { selectSource, WorkloadSourceRegistry, workloadSources } from "../../../src/workload/sources/registry.js";
import type { SourceOutput, WorkloadSource } from "../../../src/workload/sources/source.js";
import { makeRequest } from "../../../src/core/workloadRequest.js";
import { RUN_DEFAULTS, type RunInput } from "../../../src/config/runOptions.js";
import { runFlags } from "../../../src/config/runFlags.js";
import { parseParams } from "../../../src/util/policyRegistry.js";
import { simulate } from "../../../src/sim/simulate.js";
import { UserError } from "../../../src/util/errors.js";
import { silentLogger } from "../../../src/util/log.js";

const fixedParams = z.object({ fixedArrivals: z.string().default("") });
type FixedParams = z.infer<typeof fixedParams>;

/** A source of one request per listed arrival tick (`--fixed-arrivals 0,5000`), 8 prompt and 3 output tokens each. */
const fixedSource: WorkloadSource<FixedParams> = {
  name: "fixed-arrivals",
  description: "one request per listed arrival tick",
  params: fixedParams,
  flags: [{ key: "fixedArrivals", flag: "--fixed-arrivals", type: "string", group: "workload", help: "arrival ticks" }],
  rank: 50,
  selects: (p) => p.fixedArrivals !== "",
  resolve: (p, context): SourceOutput => ({
    kind: "requests",
    requests: p.fixedArrivals
      .split(",")
      .map((t, i) => makeRequest(`fixed_${i}`, Number(t), [1, 2, 3, 4, 5, 6, 7, 8], [9, 10, 11])),
    horizon: context.horizon,
    deadlines: false,
  }),
};

const QUIET = { model: "test-model", alphaCoeffs: [100, 1, 100], betaCoeffs: [1000, 2, 1] };

test("a registered source is selected by its own flag and its requests are the ones simulated", async () => {
  workloadSources.register(fixedSource);
  try {
    const input: RunInput & { fixedArrivals: string } = { ...QUIET, fixedArrivals: "0,5000,9000" };
    const res = await simulate(input, { logger: silentLogger });
    const records = res.resultsObject().requests ?? [];
    assert.deepEqual(
      records.map((r) => [r.requestID, r.arrived_at, r.num_prefill_tokens, r.num_decode_tokens]),
      [
        ["fixed_0", 0, 8, 3],
        ["fixed_1", 0.005, 8, 3],
        ["fixed_2", 0.009, 8, 3],
      ],
    );
    assert.equal(res.metrics.cluster.completed_requests, 3);
    // Its flag is a `blis run` flag, after the built-in ones.
    assert.equal(runFlags().at(-1)?.flag, "--fixed-arrivals");
    // Without its option the built-in sources select as before (distribution mode's 100 requests).
    const plain = await simulate({ ...QUIET, numRequests: 4 }, { logger: silentLogger });
    assert.equal(plain.metrics.cluster.completed_requests, 4);
  } finally {
    workloadSources.unregister("fixed-arrivals");
  }
  assert.ok(!runFlags().some((f) => f.flag === "--fixed-arrivals"));
  const input: RunInput & { fixedArrivals: string } = { ...QUIET, fixedArrivals: "0" };
  await assert.rejects(simulate(input, { logger: silentLogger }), UserError);
});

test("sources are asked by rank, equal ranks in registration order; a name registers once", () => {
  const registry = new WorkloadSourceRegistry();
  const source = (name: string, rank: number): WorkloadSource<FixedParams> => ({ ...fixedSource, name, rank });
  registry.register(source("late", 300));
  registry.register(source("early", 100));
  registry.register(source("tie", 300));
  assert.deepEqual(
    registry.ranked().map((s) => s.name),
    ["early", "late", "tie"],
  );
  assert.throws(() => registry.register(source("early", 1)), /already registered/);
  assert.equal(selectSource(registry.bind({ fixedArrivals: "1" })).name, "early");
  assert.throws(() => selectSource(registry.bind({})), /no workload source selects/);
});

test("every registered source's flags are `blis run` flags, once each", () => {
  const flags = runFlags().map((f) => f.flag);
  for (const source of workloadSources.ranked()) {
    for (const f of source.flags) {
      assert.equal(flags.filter((x) => x === f.flag).length, 1, `${source.name}: ${f.flag}`);
    }
  }
});

test("a source's option defaults are the run options' defaults (each option has one default)", () => {
  const defaults: Readonly<Record<string, unknown>> = RUN_DEFAULTS;
  for (const source of workloadSources.ranked()) {
    const own = parseParams(source.params, {});
    for (const [key, value] of Object.entries(own as Record<string, unknown>)) {
      assert.ok(key in RUN_DEFAULTS, `${source.name}: ${key} is not a run option`);
      assert.deepEqual(value, defaults[key], `${source.name}: ${key}`);
    }
  }
});
