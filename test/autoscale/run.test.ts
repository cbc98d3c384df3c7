// Autoscaled runs end to end (docs/autoscaling.md): opt-in (no keys → byte-identical output),
// deterministic, requests conserved through scale-down, never below min_replicas, idle draining
// instances terminate, only routable instances get requests, node inventory holds.

import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import fc from "fast-check";
import { simulate } from "../../src/sim/simulate.js";
import { silentLogger } from "../../src/util/log.js";
import { DRAINING } from "../../src/infra/lifecycle.js";
import { cli } from "../helpers/cli.js";
import { BASE } from "../cluster/helpers.js";
import { autoscalerOf } from "../../src/features/autoscale/access.js";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "blis-autoscale-"));
process.on("exit", () => fs.rmSync(dir, { recursive: true, force: true }));
let k = 0;
function bundle(text: string): string {
  const f = path.join(dir, `b${k++}.yaml`);
  fs.writeFileSync(f, text);
  return f;
}

/** A short burst (3 s at 60/s) then a trickle (1/s for 60 s) on small instances. */
function spec(): Record<string, unknown> {
  const lengths = {
    input_distribution: { type: "constant", params: { value: 256 } },
    output_distribution: { type: "constant", params: { value: 64 } },
  };
  return {
    version: "2",
    clients: [
      {
        id: "c",
        arrival: { process: "poisson" },
        ...lengths,
        rate_schedule: [
          { at_s: 0, rate: 60 },
          { at_s: 3, rate: 1 },
          { at_s: 60, rate: 0 },
        ],
      },
    ],
  };
}

const SCALING = `node_pools:
  - {name: h100, gpu_type: H100, gpus_per_node: 1, gpu_memory_gib: 80, initial_nodes: 1, min_nodes: 1, max_nodes: 4, provisioning_delay: {mean: 1, stddev: 0.5}}
instance_lifecycle:
  loading_delay: {mean: 2, stddev: 1}
  drain_policy: DRAIN
autoscaler:
  interval_us: 1000000
  scale_down_stabilization_window_us: 2000000
  hpa_scrape_delay: {mean: 0.2, stddev: 0.1}
  min_replicas: MIN
`;

const MODEL = { model: "test-model", alphaCoeffs: [100, 1, 100], betaCoeffs: [3000, 10, 5], totalKvBlocks: 400 };

async function run(extra: Record<string, unknown>, seed = 5, routed?: [number, number][]) {
  const clusterObserver = {
    onRouted: (_req: unknown, i: number, t: number) => routed?.push([i, t]),
    onClock: () => undefined,
  };
  return simulate(
    { ...MODEL, workloadSpecObject: spec(), seed, ...extra },
    { logger: silentLogger, hooks: { clusterObserver } },
  );
}

function conserved(m: Awaited<ReturnType<typeof simulate>>["metrics"]): void {
  const c = m.cluster;
  const lost =
    m.generated -
    c.completed_requests -
    c.still_queued -
    c.still_running -
    m.anomalies.droppedUnservable -
    m.anomalies.rejected -
    (m.anomalies.routingRejections ?? 0);
  assert.equal(lost, 0, "every generated request is accounted for");
}

test("without autoscaling keys the output is byte-identical, flag 0 included", async () => {
  const plain = await cli([...BASE]);
  const off = await cli([...BASE, "--model-autoscaler-interval-us", "0"]);
  assert.equal(plain.code, 0);
  assert.equal(off.stdout, plain.stdout);
  assert.doesNotMatch(plain.stdout, /Autoscaler/);
});

test("an autoscaled run is deterministic", async () => {
  const b = bundle(SCALING.replace("DRAIN", "wait").replace("MIN", "1"));
  const args = [
    ...BASE,
    "--num-requests",
    "3000",
    "--rate",
    "300",
    "--total-kv-blocks",
    "60",
    "--output-tokens",
    "30",
    "--policy-config",
    b,
  ];
  const a = await cli(args);
  const again = await cli(args);
  assert.equal(a.code, 0, a.stderr.join("\n"));
  assert.equal(again.stdout, a.stdout);
  assert.match(a.stdout, /autoscale-test-model-000001/);
  const hours = /Instance GPU-hours: ([\d.]+)\n/.exec(a.stdout);
  assert.ok(hours !== null && Number(hours[1]) > 0, "the autoscaler block reports GPU-hours");
  assert.match(a.stdout, /Nodes provisioned: \d+, node GPU-hours: [\d.]+\n$/);
});

for (const drain of ["wait", "redirect"]) {
  test(`scale-up then scale-down under load (${drain}): conservation, min_replicas, routable targets, termination`, async () => {
    const res = await run({
      policyConfig: bundle(SCALING.replace("DRAIN", drain).replace("MIN", "1")),
      numInstances: 1,
    });
    const ctl = autoscalerOf(res.run)!;
    const kinds = ctl.scaleEvents.map((e) => e.kind);
    assert.ok(kinds.includes("scale-up") && kinds.includes("scale-down"), kinds.join(","));
    conserved(res.metrics);
    assert.equal(res.metrics.cluster.still_queued + res.metrics.cluster.still_running, 0);
    assert.ok(
      res.run.instances.every((i) => i.lifecycle !== DRAINING),
      "idle draining instances terminated",
    );
    ctl.fleet.pools!.checkInventory();
    // Replay the lifecycle events: the routable count never drops below min_replicas.
    let routable = 1;
    for (const e of ctl.scaleEvents) {
      if (e.kind === "active") routable++;
      if (e.kind === "scale-down") routable--;
      assert.ok(routable >= 1, `routable ${routable} at ${e.t}`);
    }
  });
}

test("only routable instances receive requests", async () => {
  const routed: [number, number][] = [];
  const res = await run({ policyConfig: bundle(SCALING.replace("DRAIN", "wait").replace("MIN", "1")) }, 9, routed);
  const events = autoscalerOf(res.run)!.scaleEvents;
  const wrong = routed.filter(([i, t]) => {
    const id = res.run.instances[i]!.id;
    const active = i === 0 ? 0 : (events.find((e) => e.kind === "active" && e.detail === id)?.t ?? Infinity);
    const drained = events.find((e) => e.kind === "scale-down" && e.detail.includes(`instance ${id} `))?.t ?? Infinity;
    return !(active <= t && t <= drained);
  });
  assert.ok(routed.length > 100);
  assert.deepEqual(wrong, []);
});

test("two idle replicas never scale to zero (min_replicas 1), and scale-up works without node pools", async () => {
  const b = bundle(`autoscaler:\n  interval_us: 500000\n`);
  const res = await run({ policyConfig: b, numInstances: 3 });
  const ctl = autoscalerOf(res.run)!;
  assert.equal(ctl.fleet.pools, null);
  conserved(res.metrics);
  assert.equal(res.metrics.anomalies.routingRejections ?? 0, 0, "a replica is always left");
  assert.ok(
    ctl.scaleEvents.some((e) => e.kind === "scale-up"),
    "scale-up without node pools",
  );
  assert.ok(ctl.scaleEvents.some((e) => e.kind === "terminated"));
});

test("conservation holds for random autoscaling settings", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.record({
        seed: fc.integer({ min: 1, max: 1000 }),
        min: fc.integer({ min: 1, max: 2 }),
        drain: fc.constantFrom("wait", "redirect"),
        instances: fc.integer({ min: 1, max: 3 }),
      }),
      async (p) => {
        const res = await run(
          {
            policyConfig: bundle(SCALING.replace("DRAIN", p.drain).replace("MIN", String(p.min))),
            numInstances: p.instances,
          },
          p.seed,
        );
        conserved(res.metrics);
        autoscalerOf(res.run)!.fleet.pools!.checkInventory();
      },
    ),
    { numRuns: 8 },
  );
});

const bad: [string, string][] = [
  ["autoscaler:\n  interval_us: -1\n", "Invalid policy config: autoscaler.interval_us must be finite and >= 0, got -1"],
  [
    "autoscaler:\n  interval_us: 1000\n  analyzer: {kv_cache_threshold: 1.5}\n",
    "Invalid policy config: autoscaler.analyzer.kv_cache_threshold must be in (0, 1], got 1.5",
  ],
  [
    "autoscaler:\n  interval_us: 1000\n  analyzer: {scale_down_boundary: 0.9}\n",
    "Invalid policy config: autoscaler.analyzer.scale_down_boundary (D) must be < effective scale_up_threshold (U)",
  ],
  [
    "autoscaler:\n  interval_us: 1000\n  engine: magic\n",
    'Invalid policy config: unknown autoscaler engine "magic"; valid options: greedy, unlimited',
  ],
  ["autoscaler:\n  min_replicas: 0\n", "Invalid policy config: autoscaler.min_replicas must be >= 1, got 0"],
  ["node_pools:\n  - {gpu_type: H100}\n", "Invalid policy config: node_pools[0]: name must not be empty"],
  [
    "node_pools:\n  - {name: p, gpu_type: H100, gpus_per_node: 1, gpu_memory_gib: 80, initial_nodes: 3, max_nodes: 2}\n",
    'Invalid policy config: node_pools[0] "p": max_nodes (2) must be >= initial_nodes (3)',
  ],
  [
    "instance_lifecycle:\n  loading_delay: {mean: -2}\n",
    "Invalid policy config: instance_lifecycle.loading_delay.mean must be finite and >= 0, got -2",
  ],
  [
    "instance_lifecycle:\n  drain_policy: vanish\n",
    'Invalid policy config: unknown drain policy "vanish"; valid options: redirect, wait',
  ],
];

for (const [text, message] of bad) {
  test(`bundle check: ${message}`, async () => {
    const res = await cli([...BASE, "--policy-config", bundle(text)]);
    assert.equal(res.code, 1);
    assert.equal(res.stdout, "");
    assert.equal(res.stderr.filter((l) => !l.startsWith("level="))[0], `error: ${message}`);
  });
}

test("a bad --model-autoscaler-interval-us names the flag", async () => {
  const res = await cli([...BASE, "--model-autoscaler-interval-us", "-5"]);
  assert.equal(res.code, 1);
  assert.equal(
    res.stderr.at(-1),
    "error: --model-autoscaler-interval-us must be a finite number >= 0 (0 = off), got -5",
  );
});
