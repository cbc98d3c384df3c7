import { test } from "node:test";
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { cli, clusterBlock } from "../helpers/cli.js";

const root = (p: string) => fileURLToPath(new URL(`../../../${p}`, import.meta.url));
const fixture = (f: string) => fileURLToPath(new URL(`../../../test/plugin/fixtures/${f}`, import.meta.url));
const BASE = [
  "run",
  "--model",
  "meta-llama/llama-3.1-8b-instruct",
  "--num-requests",
  "40",
  "--rate",
  "20",
  "--num-instances",
  "3",
];

test("a plugin scorer joins weighted routing and influences decisions", async () => {
  const args = [...BASE, "--plugin", root("examples/plugins/least-kv-scorer.mjs"), "--routing-policy", "weighted"];
  const withPlugin = await cli([
    ...args,
    "--routing-scorers",
    "free-kv:2,queue-depth:1",
    "--trace-level",
    "decisions",
    "--summarize-trace",
  ]);
  assert.equal(withPlugin.code, 0, withPlugin.stderr.join("\n"));
  assert.equal(clusterBlock(withPlugin.stdout)["completed_requests"], 40);
  assert.match(withPlugin.stdout, /Unique Targets: 3/);
  const again = await cli([
    ...args,
    "--routing-scorers",
    "free-kv:2,queue-depth:1",
    "--trace-level",
    "decisions",
    "--summarize-trace",
  ]);
  assert.equal(again.stdout, withPlugin.stdout, "deterministic with plugins too");
});

test("plugin priority and admission policies with options", async () => {
  const r = await cli([
    ...BASE,
    "--plugin",
    root("examples/plugins/tenant-priority.mjs"),
    "--priority-policy",
    "tenant-weighted",
    "--scheduler",
    "priority-fcfs",
    "--admission-policy",
    "tenant-quota",
    "--plugin-option",
    "tenant-priority.quota=10",
  ]);
  assert.equal(r.code, 0, r.stderr.join("\n"));
  // The distribution workload has no tenant: the quota admits 10, rejects 30.
  assert.match(r.stdout, /Rejected Requests: 30/);
  assert.equal(clusterBlock(r.stdout)["completed_requests"], 10);
});

test("a plugin that throws is reported with its name and the request, exit 1", async () => {
  const r = await cli([
    ...BASE,
    "--plugin",
    fixture("throwing-scorer.mjs"),
    "--routing-policy",
    "weighted",
    "--routing-scorers",
    "explodes:1",
  ]);
  assert.equal(r.code, 1);
  const errors = r.stderr.filter((l) => l.startsWith("error:"));
  assert.equal(errors.length, 1);
  assert.match(errors[0]!, /plugin broken: scorer "explodes" \(request request_3\): threw boom/);
});

test("non-finite scores and wrong shapes are reported, exit 1", async () => {
  const nan = await cli([
    ...BASE,
    "--plugin",
    fixture("nan-scorer.mjs"),
    "--routing-policy",
    "weighted",
    "--routing-scorers",
    "nan-score:1",
  ]);
  assert.equal(nan.code, 1);
  assert.match(
    nan.stderr.join("\n"),
    /plugin nan-plugin: scorer "nan-score" \(request request_0\): non-finite score NaN/,
  );
  const shape = await cli([...BASE, "--plugin", fixture("bad-shape.mjs"), "--priority-policy", "no-compute"]);
  assert.equal(shape.code, 1);
  assert.match(shape.stderr.join("\n"), /plugin shapeless: priority policy "no-compute": missing method compute\(\)/);
  const yes = await cli([...BASE, "--plugin", fixture("bad-shape.mjs"), "--admission-policy", "says-yes"]);
  assert.equal(yes.code, 1);
  assert.match(yes.stderr.join("\n"), /admit\(\) returned string, expected boolean/);
  const missing = await cli([...BASE, "--plugin", fixture("does-not-exist.mjs")]);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr.join("\n"), /--plugin .*does-not-exist\.mjs: cannot load module/);
});

test("plugin options and registrations belong to one simulation, not to the process", async () => {
  const { simulate } = await import("../../src/sim/simulate.js");
  const base = {
    model: "meta-llama/llama-3.1-8b-instruct",
    numRequests: 40,
    rate: 20,
    plugin: [root("examples/plugins/tenant-priority.mjs")],
    admissionPolicy: "tenant-quota",
  };
  const completed = async (quota: number) =>
    (await simulate({ ...base, pluginOption: [`tenant-priority.quota=${quota}`] })).metrics.cluster.completed_requests;
  // Each call sees its own option value, in any order, in the same process.
  assert.deepEqual(
    [await completed(12), await completed(34), await completed(5), await completed(12)],
    [12, 34, 5, 12],
  );
  // After a run, the plugin's policies are gone: a run without --plugin cannot name them.
  await assert.rejects(
    simulate({ model: base.model, numRequests: 5, admissionPolicy: "tenant-quota" }),
    /tenant-quota/,
  );
  // Options for a plugin that is not loaded are refused rather than ignored.
  await assert.rejects(
    simulate({ ...base, pluginOption: ["tenant-prio.quota=3"] }),
    /no loaded plugin is named "tenant-prio"/,
  );
});
