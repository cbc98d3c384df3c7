// The gateway with main's other features: client deadlines (a request that times out in the queue
// counts once) and prefill/decode disaggregation (goodput over user requests; the queue and tenant
// budgets refused).
import { test } from "node:test";
import assert from "node:assert/strict";
import { cli, splitArgs } from "../helpers/cli.js";
import { tempFile } from "../sim/helpers.js";

const BASE = "run --model meta-llama/llama-3.1-8b-instruct --num-requests 200 --rate 400 --seed 7";

/** The cluster's metrics block (the last one printed). */
function clusterBlock(stdout: string): Record<string, unknown> {
  const blocks = stdout.split("=== Simulation Metrics ===\n").slice(1);
  const last = blocks.at(-1)!;
  return JSON.parse(last.slice(0, last.indexOf("\n}\n") + 2)) as Record<string, unknown>;
}

function line(stdout: string, label: string): number {
  const m = new RegExp(`^${label.replace(/[()]/g, "\\$&")}: (\\d+)$`, "m").exec(stdout);
  return m === null ? 0 : Number(m[1]);
}

test("client deadlines with the gateway queue: a request that times out while waiting counts once", async () => {
  const r = await cli(
    splitArgs(
      `${BASE} --num-instances 1 --flow-control --saturation-detector concurrency --max-concurrency 4 --timeout 1`,
    ),
  );
  assert.equal(r.code, 0, r.stderr.join("\n"));
  const queueTimedOut = line(r.stdout, "Gateway Timed Out (deadline)");
  assert.ok(queueTimedOut > 0, r.stdout);
  const c = clusterBlock(r.stdout);
  const injected = c.injected_requests as number;
  const instanceTimedOut = c.timed_out_requests as number;
  assert.equal(line(r.stdout, "Timed Out Requests"), instanceTimedOut, "the anomaly line is the instances' count");
  const other = [
    "Rejected Requests",
    "Gateway Queue Shed",
    "Gateway Queue Rejected",
    "Gateway Expired (TTL)",
    "Gateway Queue Depth (horizon)",
  ];
  const elsewhere = other.reduce((s, l) => s + line(r.stdout, l), 0);
  assert.equal(injected + queueTimedOut + elsewhere, 200, "every request ends in exactly one place");
  assert.equal(line(r.stdout, "  Shed (standard)"), 0, "a client timeout is not a shed");
});

test("PD with goodput targets: per-class goodput over the user requests", async () => {
  const r = await cli(
    splitArgs(
      `${BASE} --num-instances 4 --prefill-instances 2 --decode-instances 2 --pd-decider always --slo-ttft default=10s`,
    ),
  );
  assert.equal(r.code, 0, r.stderr.join("\n"));
  assert.match(r.stdout, /=== PD Metrics ===/);
  const c = clusterBlock(r.stdout);
  const perClass = c.per_class as Record<string, { count: number; slo_attainment: number }>;
  assert.equal(perClass.default!.count, 200, "arrivals are user requests, not sub-requests");
  assert.equal(c.completed_requests, 200);
  assert.ok(perClass.default!.slo_attainment > 0 && perClass.default!.slo_attainment <= 1);
});

test("PD with tenant budgets is refused", async () => {
  const bundle = tempFile('tenant_budgets: {"alice": 0.5}\n');
  const r = await cli(
    splitArgs(`${BASE} --num-instances 4 --prefill-instances 2 --decode-instances 2 --policy-config ${bundle}`),
  );
  assert.equal(r.code, 1);
  assert.equal(r.stdout, "");
  assert.deepEqual(
    r.stderr.filter((l) => l.startsWith("error: ")),
    [
      "error: --prefill-instances/--decode-instances cannot be combined with --flow-control or tenant budgets (--policy-config tenant_budgets)",
    ],
  );
});
