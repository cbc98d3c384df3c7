// The gateway's flags and bundle keys on the command line: one-line errors naming the flag or
// key, warnings for flags without effect, opt-in output.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import { cli } from "../helpers/cli.js";
import { cliError, tempFile } from "../sim/helpers.js";

test("gateway flags: invalid values are one-line errors naming the flag", async () => {
  const cases: [string[], string][] = [
    [["--request-ttl", "-1"], "--request-ttl must be >= 0, got -1"],
    [["--dispatch-tick-interval", "-5"], "--dispatch-tick-interval must be >= 0, got -5"],
    [
      ["--flow-control", "--saturation-detector", "x"],
      'Unknown saturation detector "x". Valid: concurrency, never, utilization',
    ],
    [
      ["--flow-control", "--saturation-detector", "utilization", "--queue-depth-threshold", "0"],
      "--queue-depth-threshold must be a finite value > 0, got 0",
    ],
    [
      ["--flow-control", "--saturation-detector", "utilization", "--kv-cache-util-threshold", "NaN"],
      "--kv-cache-util-threshold must be in (0, 1], got NaN",
    ],
    [
      ["--flow-control", "--saturation-detector", "concurrency", "--max-concurrency", "0"],
      "--max-concurrency must be > 0, got 0",
    ],
    [
      ["--flow-control", "--dispatch-order", "lifo"],
      `--dispatch-order must be 'fifo', 'priority', or 'slo-deadline', got "lifo"`,
    ],
    [
      ["--flow-control", "--fairness-policy", "x"],
      `--fairness-policy must be 'global-strict' or 'round-robin', got "x"`,
    ],
    [["--flow-control", "--usage-limit-threshold", "0"], "--usage-limit-threshold must be in (0, 1], got 0"],
    [["--flow-control", "--max-gateway-queue-depth", "-1"], "--max-gateway-queue-depth must be >= 0, got -1"],
    [["--flow-control", "--per-band-capacity", "-2"], "--per-band-capacity must be >= 0, got -2"],
    [["--flow-control", "--slo-targets", "critical"], '--slo-targets: invalid format "critical" (expected key=value)'],
    [["--flow-control", "--slo-targets", "=5"], '--slo-targets: empty class in "=5"'],
    [
      ["--flow-control", "--slo-targets", "critical=0"],
      '--slo-targets: target for "critical" must be a positive integer (µs), got "0"',
    ],
    [["--slo-ttft", "critical=0s"], '--slo-ttft: non-positive duration in pair "critical=0s"'],
    [["--slo-e2e", "critical"], '--slo-e2e: invalid pair "critical" (expected class=duration)'],
    [["--admission-policy", "tier-shed", "--tier-shed-threshold", "-1"], "tier_shed_threshold must be >= 0, got -1"],
    [
      ["--admission-policy", "gaie-legacy", "--gaie-kv-threshold", "1.5"],
      "gaie_kv_threshold must be a finite value in (0, 1.0], got 1.5",
    ],
    [
      ["--admission-policy", "gaie-legacy", "--gaie-qd-threshold", "0"],
      "gaie_qd_threshold must be a finite value > 0, got 0",
    ],
  ];
  for (const [args, msg] of cases) assert.equal(await cliError(args), msg, args.join(" "));
});

test("gateway bundle keys: out-of-range values are errors naming the key", async () => {
  const bad: [string, string][] = [
    [
      "admission:\n  slo_priorities: {batch: 101}\n",
      'slo_priorities override for "batch": value 101 out of range [-100, 100]',
    ],
    ['tenant_budgets: {"alice": 1.5}\n', 'tenant_budgets["alice"] must be in [0, 1], got 1.5'],
    ["admission:\n  policy: tier-shed\n  tier_shed_threshold: -3\n", "tier_shed_threshold must be >= 0, got -3"],
  ];
  for (const [yaml, msg] of bad) assert.equal(await cliError(["--policy-config", tempFile(yaml)]), msg);
  const unknown = await cliError(["--policy-config", tempFile("admission:\n  slo_priorty: {}\n")]);
  assert.match(unknown, /unknown field "slo_priorty"/);
});

const RUN = [
  "run",
  "--model",
  "meta-llama/llama-3.1-8b-instruct",
  "--num-requests",
  "30",
  "--rate",
  "50",
  "--num-instances",
  "2",
];

test("flow control with the never detector passes requests straight through: the same metrics", async () => {
  const base = await cli(RUN);
  const fc = await cli([...RUN, "--flow-control"]);
  assert.equal(base.code, 0);
  assert.equal(fc.code, 0);
  assert.equal(fc.stdout, base.stdout);
  assert.ok(
    fc.stderr.some(
      (l) =>
        l.includes('saturation detector \\"never\\" never gates dispatch') ||
        l.includes('"never" never gates dispatch'),
    ),
  );
});

test("flags of the gateway without --flow-control warn and change nothing", async () => {
  const base = await cli(RUN);
  const r = await cli([...RUN, "--request-ttl", "5", "--queue-shedding", "--in-flight-eviction"]);
  assert.equal(r.stdout, base.stdout);
  for (const f of ["--request-ttl", "--queue-shedding", "--in-flight-eviction"]) {
    assert.ok(
      r.stderr.some((l) => l.includes(`${f} has no effect without --flow-control`)),
      f,
    );
  }
});

test("goodput targets from the workload spec, overridden per dimension by the flags", async () => {
  const spec = tempFile(`version: "2"
seed: 7
aggregate_rate: 20
num_requests: 40
goodput_slo_targets:
  critical: {ttft_ms: 100000, e2e_ms: 1}
clients:
  - id: c
    slo_class: critical
    rate_fraction: 1
    arrival: {process: poisson}
    input_distribution: {type: constant, params: {value: 64}}
    output_distribution: {type: constant, params: {value: 8}}
`);
  const base = ["run", "--model", "meta-llama/llama-3.1-8b-instruct", "--workload-spec", spec];
  const fromSpec = await cli(base);
  assert.equal(fromSpec.code, 0, fromSpec.stderr.join("\n"));
  const block = (
    out: string,
  ): { per_class: Record<string, { slo_attainment: number; slo_attainment_by_dim: Record<string, number> }> } =>
    JSON.parse(out.slice(out.indexOf("{"), out.indexOf("\n}\n") + 2)) as never;
  const a = block(fromSpec.stdout).per_class["critical"]!;
  assert.deepEqual(a.slo_attainment_by_dim, { e2e: 0, ttft: 1 }, "E2E ≤ 1 ms is never met; TTFT ≤ 100 s always");
  assert.equal(a.slo_attainment, 0);
  assert.match(
    fromSpec.stdout,
    /=== Per-SLO Metrics ===\n {2}critical:/,
    "one class with targets prints the per-SLO block",
  );
  const flagged = await cli([...base, "--slo-e2e", "critical=1000s"]);
  assert.equal(
    block(flagged.stdout).per_class["critical"]!.slo_attainment,
    1,
    "the flag replaces the spec's E2E target",
  );
});

test("results file: gateway_queue_delay_ms on requests that waited in the gateway queue", async () => {
  const out = tempFile("", ".json");
  const r = await cli([
    ...RUN,
    "--rate",
    "400",
    "--flow-control",
    "--saturation-detector",
    "concurrency",
    "--max-concurrency",
    "2",
    "--results-path",
    out,
  ]);
  assert.equal(r.code, 0, r.stderr.join("\n"));
  const recs = (
    JSON.parse(fs.readFileSync(out, "utf8")) as { requests: { arrived_at: number; gateway_queue_delay_ms?: number }[] }
  ).requests;
  const delayed = recs.filter((x) => x.gateway_queue_delay_ms !== undefined);
  assert.ok(delayed.length > 10, `${delayed.length} records with a gateway delay`);
  assert.ok(delayed.some((x) => x.gateway_queue_delay_ms! > 0));
  assert.ok(delayed.every((x) => x.arrived_at > 0 && x.gateway_queue_delay_ms! >= 0));
  const plain = tempFile("", ".json");
  await cli([...RUN, "--results-path", plain]);
  assert.doesNotMatch(fs.readFileSync(plain, "utf8"), /gateway_queue_delay_ms/);
});

test("tier-shed min priority: 3 from a bundle that selects it, else 0 with a warning", async () => {
  const warn = /tier-shed: no min priority given; 0 sheds only negative-priority classes/;
  const cliPolicy = await cli([...RUN, "--admission-policy", "tier-shed"]);
  assert.equal(cliPolicy.code, 0);
  assert.ok(cliPolicy.stderr.some((l) => warn.test(l)));
  const bundle = await cli([...RUN, "--policy-config", tempFile("admission:\n  policy: tier-shed\n")]);
  assert.equal(bundle.code, 0);
  assert.ok(!bundle.stderr.some((l) => warn.test(l)));
  // With min priority 3 and threshold 0, standard traffic passes and nothing is lower: all admitted.
  assert.doesNotMatch(bundle.stdout, /Rejected Requests: [1-9]/);
});
