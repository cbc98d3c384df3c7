// The lora-affinity scorer and --lora-scorer-weight (docs/lora.md "Routing").
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { LoraAffinityScorer } from "../../src/cluster/scorers/loraAffinity.js";
import { InstanceSnapshot, type RouterState } from "../../src/cluster/snapshot.js";
import { Request } from "../../src/core/request.js";
import { makeRequest } from "../../src/core/workloadRequest.js";
import { cli } from "../helpers/cli.js";

function state(resident: (string[] | null)[]): RouterState {
  const snapshots = resident.map((ids, i) => {
    const s = new InstanceSnapshot(`instance_${i}`, i);
    s.residentAdapters = ids === null ? null : new Set(ids);
    return s;
  });
  return { snapshots, clock: 0 };
}

function scores(adapter: string, resident: (string[] | null)[]): number[] {
  const r = new Request(makeRequest("request_0", 0, [1, 2], [3], { adapter }), 0, 16);
  const out = new Float64Array(resident.length);
  new LoraAffinityScorer().score(r, state(resident), out);
  return [...out];
}

test("warm instances score 1, cold 0; no adapter or all equal: 1 for all", () => {
  assert.deepEqual(scores("a", [["a"], ["b"], ["a", "b"]]), [1, 0, 1]);
  assert.deepEqual(scores("a", [["b"], [], ["c"]]), [1, 1, 1], "cold everywhere");
  assert.deepEqual(scores("a", [["a"], ["a"]]), [1, 1], "warm everywhere");
  assert.deepEqual(scores("", [["a"], []]), [1, 1], "no adapter");
  assert.deepEqual(scores("a", [null, ["a"]]), [0, 1]);
});

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "lora-scorer-"));
const lora = path.join(dir, "lora.yaml");
fs.writeFileSync(lora, "lora:\n  adapter_capacity: 1\n  adapters:\n    - {id: a, rank: 8}\n");
const BASE = [
  "run",
  "--model",
  "meta-llama/llama-3.1-8b-instruct",
  "--num-requests",
  "5",
  "--lora-config",
  lora,
  "--num-instances",
  "2",
];

test("--lora-scorer-weight: > 0 and finite, only with weighted (a warning otherwise), not twice", async () => {
  for (const w of ["0", "-1", "NaN"]) {
    const r = await cli([...BASE, "--routing-policy", "weighted", "--lora-scorer-weight", w]);
    assert.equal(r.code, 1);
    assert.match(r.stderr.join("\n"), /error: --lora-scorer-weight must be a finite value > 0, got/);
  }
  const rr = await cli([...BASE, "--lora-scorer-weight", "1"]);
  assert.equal(rr.code, 0, rr.stderr.join("\n"));
  assert.match(rr.stderr.join("\n"), /--lora-scorer-weight has no effect when routing policy is \\?"round-robin/);
  const twice = await cli([
    ...BASE,
    "--routing-policy",
    "weighted",
    "--routing-scorers",
    "lora-affinity:1,queue-depth:1",
    "--lora-scorer-weight",
    "1",
  ]);
  assert.equal(twice.code, 1);
  assert.match(
    twice.stderr.join("\n"),
    /error: --lora-scorer-weight: lora-affinity is already in the routing scorer profile/,
  );
  const ok = await cli([...BASE, "--routing-policy", "weighted", "--lora-scorer-weight", "2", "--log", "info"]);
  assert.equal(ok.code, 0, ok.stderr.join("\n"));
  const named = await cli([...BASE, "--routing-policy", "weighted", "--routing-scorers", "lora-affinity:2"]);
  assert.equal(named.code, 0, named.stderr.join("\n"));
});

test("lora-affinity keeps an adapter's requests where it is resident", async () => {
  const spec = path.join(dir, "spec.yaml");
  const client = (id: string, a: string): string =>
    `  - {id: ${id}, rate_fraction: 0.5, adapter: ${a}, arrival: {process: poisson}, input_distribution: {type: constant, params: {value: 100}}, output_distribution: {type: constant, params: {value: 20}}}\n`;
  fs.writeFileSync(
    path.join(dir, "two.yaml"),
    "lora:\n  adapter_capacity: 1\n  adapters:\n    - {id: a, rank: 8}\n    - {id: b, rank: 8}\n",
  );
  fs.writeFileSync(
    spec,
    `version: "2"\nseed: 3\naggregate_rate: 20\nnum_requests: 100\nclients:\n${client("ca", "a")}${client("cb", "b")}`,
  );
  const args = [
    "run",
    "--model",
    "meta-llama/llama-3.1-8b-instruct",
    "--workload-spec",
    spec,
    "--lora-config",
    path.join(dir, "two.yaml"),
  ];
  const loads = (stdout: string): number => Number(/Cold Loads: (\d+)/.exec(stdout)![1]);
  const qd = await cli([
    ...args,
    "--num-instances",
    "2",
    "--routing-policy",
    "weighted",
    "--routing-scorers",
    "queue-depth:1",
  ]);
  const aff = await cli([
    ...args,
    "--num-instances",
    "2",
    "--routing-policy",
    "weighted",
    "--routing-scorers",
    "queue-depth:1",
    "--lora-scorer-weight",
    "3",
  ]);
  assert.equal(qd.code, 0, qd.stderr.join("\n"));
  assert.equal(aff.code, 0, aff.stderr.join("\n"));
  assert.ok(loads(aff.stdout) < loads(qd.stdout), `${loads(aff.stdout)} < ${loads(qd.stdout)}`);
  // Before the first load completes both instances are cold, so an adapter may load twice.
  assert.ok(loads(aff.stdout) <= 4, "each adapter settles on one instance");
});
