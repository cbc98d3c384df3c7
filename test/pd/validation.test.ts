// Bad PD options: one line on stderr naming the flag, exit status 1, nothing on stdout, before the
// run (docs/prefill-decode.md "Validation order").

import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { cli, splitArgs } from "../helpers/cli.js";

const BASE = "run --model meta-llama/llama-3.1-8b-instruct --num-instances 4 --num-requests 5";

const CASES: [string, string][] = [
  ["--prefill-instances=-1", "error: --prefill-instances must be >= 0, got -1"],
  ["--decode-instances=-2", "error: --decode-instances must be >= 0, got -2"],
  [
    "--prefill-instances 2 --decode-instances 2 --pd-decider sometimes",
    'error: Unknown PD decider "sometimes". Valid: always, never, prefix-threshold',
  ],
  [
    "--prefill-instances 2",
    "error: Invalid PD pool topology: both --prefill-instances and --decode-instances must be set when PD disaggregation is enabled without shared-role pods (got prefill=2, decode=0)",
  ],
  [
    "--prefill-instances 3 --decode-instances 2",
    "error: Invalid PD pool topology: prefill-instances (P) + decode-instances (D) + prefill-decode-instances (S) + encode-instances (E) = 5 exceeds num-instances (4)",
  ],
  [
    "--encode-instances 1",
    "error: Invalid PD pool topology: encode-instances (E) requires a decode-capable pool: set --prefill-instances, --decode-instances, or --prefill-decode-instances > 0",
  ],
  [
    "--prefill-instances 2 --decode-instances 2 --pd-transfer-bandwidth 0",
    "error: --pd-transfer-bandwidth must be a finite positive number, got 0.000000",
  ],
  // Checked for any PD topology, pure-shared included.
  [
    "--prefill-decode-instances 2 --pd-transfer-bandwidth=-3",
    "error: --pd-transfer-bandwidth must be a finite positive number, got -3.000000",
  ],
  [
    "--prefill-instances 2 --decode-instances 2 --pd-transfer-base-latency=-0.5",
    "error: --pd-transfer-base-latency must be a finite non-negative number, got -0.500000",
  ],
  [
    "--prefill-instances 2 --decode-instances 2 --pd-decider prefix-threshold --pd-prefix-threshold=-1",
    "error: --pd-prefix-threshold must be >= 0, got -1",
  ],
  [
    "--prefill-instances 1 --decode-instances 1 --encode-instances 1 --encode-decider sometimes",
    'error: Unknown encode decider "sometimes". Valid: always, multimodal, never',
  ],
  [
    "--prefill-instances 2 --decode-instances 2 --encode-decider always",
    'error: --encode-decider="always" requires --encode-instances > 0 (the encode pool is disabled)',
  ],
  ["--prefill-instances 2 --decode-instances 2 --prefill-tp 0", "error: --prefill-tp must be > 0, got 0"],
  ["--prefill-instances 2 --decode-instances 2 --decode-tp=-1", "error: --decode-tp must be > 0, got -1"],
  [
    "--prefill-instances 2 --decode-instances 2 --prefill-latency-model magic",
    'error: --prefill-latency-model "magic" is not a recognized backend; valid: blackbox, kernels, roofline, trained-physics',
  ],
  [
    "--prefill-instances 2 --decode-instances 2 --decode-max-model-len 0",
    "error: --decode-max-model-len must be > 0 when set, got 0",
  ],
  [
    "--prefill-instances 2 --decode-instances 2 --prefill-routing-scorers nope:1",
    'error: Invalid --prefill-routing-scorers: unknown scorer "nope"; valid: ',
  ],
  [
    "--prefill-instances 2 --decode-instances 2 --decode-routing-scorers queue-depth",
    'error: Invalid --decode-routing-scorers: invalid scorer config "queue-depth" (expected name:weight)',
  ],
  [
    "--pd-transfer-contention",
    "error: --pd-transfer-contention requires PD disaggregation (--prefill-instances, --decode-instances, or --prefill-decode-instances must be set)",
  ],
  // Instances the autoscaler adds or drains would belong to no pool.
  [
    "--prefill-instances 2 --decode-instances 2 --model-autoscaler-interval-us 1000000",
    "error: --prefill-instances/--decode-instances cannot be combined with node pools or autoscaling (--policy-config, --model-autoscaler-interval-us)",
  ],
  // The gateway queue and tenant budgets follow user requests on one instance; PD splits them.
  [
    "--prefill-instances 2 --decode-instances 2 --flow-control",
    "error: --prefill-instances/--decode-instances cannot be combined with --flow-control or tenant budgets (--policy-config tenant_budgets)",
  ],
];

for (const [flags, message] of CASES) {
  test(`PD flags: ${flags}`, async () => {
    const r = await cli(splitArgs(`${BASE} ${flags}`));
    assert.equal(r.code, 1);
    assert.equal(r.stdout, "");
    const errors = r.stderr.filter((l) => l.startsWith("error: "));
    assert.equal(errors.length, 1, r.stderr.join("\n"));
    assert.ok(errors[0]!.startsWith(message), `${errors[0]}\n  expected to start with\n${message}`);
  });
}

test("the decider name is checked before the topology", async () => {
  const r = await cli(splitArgs(`${BASE} --prefill-instances 9 --pd-decider x`));
  assert.deepEqual(
    r.stderr.filter((l) => l.startsWith("error: ")),
    ['error: Unknown PD decider "x". Valid: always, never, prefix-threshold'],
  );
});

test("PD's options are checked before the policies' (BLIS's order), its pools after them", async () => {
  const errors = async (flags: string): Promise<string[]> =>
    (await cli(splitArgs(`${BASE} ${flags}`))).stderr.filter((l) => l.startsWith("error: "));
  assert.deepEqual(await errors("--prefill-instances=-1 --admission-policy nope"), [
    "error: --prefill-instances must be >= 0, got -1",
  ]);
  // A pool's backend is resolved with the feature's settings, after the policy names.
  const pool = "--prefill-instances 2 --decode-instances 2 --prefill-hardware NoSuchGpu";
  assert.match((await errors(`${pool} --admission-policy nope`))[0]!, /admission policy/i);
  assert.match(
    (await errors(pool))[0]!,
    /^error: --prefill-tp\/--prefill-hardware: latency model for the prefill pool/,
  );
});

test("PD options without PD warn and change nothing", async () => {
  const plain = await cli(splitArgs(BASE));
  const r = await cli(splitArgs(`${BASE} --pd-decider always --prefill-tp 2 --pd-transfer-bandwidth 5`));
  assert.equal(r.code, 0);
  assert.equal(r.stdout, plain.stdout);
  assert.ok(r.stderr.some((l) => l.includes('--pd-decider=\\"always\\" has no effect because --prefill-instances=0')));
  assert.ok(
    r.stderr.some((l) => l.includes("per-pool hardware flags (--prefill-tp, --decode-tp, etc.) have no effect")),
  );
  // A bad value is refused even without PD.
  const bad = await cli(splitArgs(`${BASE} --pd-transfer-bandwidth 0`));
  assert.equal(bad.code, 1);
  assert.equal(bad.stderr.at(-1), "error: --pd-transfer-bandwidth must be a finite positive number, got 0.000000");
});

test("a model without a config.json cannot size transfers", async () => {
  const r = await cli(
    splitArgs(
      `${BASE} --model no-such/model --latency-model blackbox --alpha-coeffs 1,1,1 --beta-coeffs 1,1,1 --hardware H100 --tp 1 --total-kv-blocks 1000 --prefill-instances 2 --decode-instances 2 --model-config-folder /nonexistent`,
    ),
  );
  assert.equal(r.code, 1);
  assert.equal(r.stdout, "");
  const errors = r.stderr.filter((l) => l.startsWith("error: "));
  assert.equal(errors.length, 1, r.stderr.join("\n"));
  assert.ok(
    errors[0]!.startsWith("error: PD disaggregation requires model architecture for KV transfer sizing: "),
    errors[0],
  );
});

test("PD with client deadlines is refused before the run, from the flag and from a spec key", async () => {
  const pd = [
    "run",
    "--model",
    "meta-llama/llama-3.1-8b-instruct",
    "--num-instances",
    "2",
    "--prefill-instances",
    "1",
    "--decode-instances",
    "1",
  ];
  const msg =
    "error: --prefill-instances/--decode-instances cannot be combined with client deadlines (--timeout, or a workload-spec client's timeout key)";
  const flag = await cli([...pd, "--num-requests", "5", "--timeout", "2"]);
  assert.equal(flag.code, 1);
  assert.deepEqual(flag.stderr, [msg]);
  assert.equal(flag.stdout, "");
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "blis-pd-deadline-"));
  const spec = path.join(dir, "spec.yaml");
  fs.writeFileSync(
    spec,
    'version: "2"\naggregate_rate: 5\nnum_requests: 5\nclients:\n  - id: c\n    rate_fraction: 1\n    timeout: 2000000\n' +
      "    arrival: {process: poisson}\n    input_distribution: {type: constant, params: {value: 100}}\n" +
      "    output_distribution: {type: constant, params: {value: 10}}\n",
  );
  const key = await cli([...pd, "--workload-spec", spec]);
  assert.equal(key.code, 1);
  assert.deepEqual(key.stderr, [msg]);
  const off = await cli([...pd, "--num-requests", "5", "--timeout", "-1"]);
  assert.equal(off.code, 0, off.stderr.join("\n"));
});
