// Decision tracing, counterfactual candidates and regret, --summarize-trace (docs/behavior.md
// "Routing and scorers", decision trace).
import { test } from "node:test";
import assert from "node:assert/strict";
import { DecisionTrace } from "../../src/trace/decisionTrace.js";
import { loads, runCli, snap, state } from "./helpers.js";
import { req, run, simConfig } from "../helpers/sim.js";
import { formatFixed } from "../../src/util/goFormat.js";
import { withoutLatencyNote } from "../helpers/cli.js";
import type { SimConfig } from "../../src/sim/simConfig.js";

test("candidates: score desc, ties by instance ID string order (instance_10 < instance_2); top min(k, N)", () => {
  const t = new DecisionTrace(3);
  const s = loads(...new Array(12).fill(0));
  t.recordRouting("r", 0, 5, "round-robin[5]", null, s.snapshots);
  const rec = t.routings[0]!;
  assert.deepEqual(
    rec.candidates.map((c) => c.instanceId),
    ["instance_0", "instance_1", "instance_10"],
  );
  assert.equal(rec.regret, 0);
  assert.equal(rec.scores, null);
  assert.equal(rec.chosen, "instance_5");
  const all = new DecisionTrace(50);
  all.recordRouting("r", 0, 0, "", null, s.snapshots);
  assert.deepEqual(
    all.routings[0]!.candidates.map((c) => c.instanceId),
    [
      "instance_0",
      "instance_1",
      "instance_10",
      "instance_11",
      "instance_2",
      "instance_3",
      "instance_4",
      "instance_5",
      "instance_6",
      "instance_7",
      "instance_8",
      "instance_9",
    ],
  );
});

test("regret without scores = chosen load − min load; candidate fields copy the snapshot", () => {
  const t = new DecisionTrace(2);
  const s = state([
    { queueDepth: 2, batchSize: 1, inFlight: 1, kvUtilization: 0.5, freeKvBlocks: 50 }, // load 4
    { queueDepth: 0, batchSize: 1, inFlight: 0, kvUtilization: 0.1, freeKvBlocks: 90 }, // load 1
    { queueDepth: 1, batchSize: 0, inFlight: 2, kvUtilization: 0.2, freeKvBlocks: 80 }, // load 3
  ]);
  t.recordRouting("r", 7, 0, "round-robin[0]", null, s.snapshots);
  const rec = t.routings[0]!;
  assert.equal(rec.regret, 3);
  assert.deepEqual(rec.candidates, [
    {
      instanceId: "instance_1",
      score: -1,
      queueDepth: 0,
      batchSize: 1,
      inFlight: 0,
      kvUtilization: 0.1,
      freeKvBlocks: 90,
    },
    {
      instanceId: "instance_2",
      score: -3,
      queueDepth: 1,
      batchSize: 0,
      inFlight: 2,
      kvUtilization: 0.2,
      freeKvBlocks: 80,
    },
  ]);
  // With a score map: best composite − chosen composite, floored at 0.
  const w = new DecisionTrace(1);
  w.recordRouting("r", 0, 2, "weighted-scoring (score=0.300)", Float64Array.from([0.9, 0.5, 0.3]), s.snapshots);
  assert.ok(Math.abs(w.routings[0]!.regret - 0.6) < 1e-12);
  assert.deepEqual(w.routings[0]!.scores, { instance_0: 0.9, instance_1: 0.5, instance_2: 0.3 });
  assert.deepEqual(
    w.routings[0]!.candidates.map((c) => [c.instanceId, c.score]),
    [["instance_0", 0.9]],
  );
  // k = 0: no candidates, regret 0 even for a bad choice.
  const z = new DecisionTrace(0);
  z.recordRouting("r", 0, 0, "", null, s.snapshots);
  assert.deepEqual([z.routings[0]!.candidates, z.routings[0]!.regret], [[], 0]);
});

function traced(routing: string, trace: Partial<SimConfig["trace"]> = {}) {
  // Every third request is long, so round-robin piles load onto instance_0.
  const reqs = Array.from({ length: 30 }, (_, i) =>
    req(`request_${i}`, i * 2000, 64 + (i % 5) * 40, i % 3 === 0 ? 150 : 4),
  );
  return run(
    simConfig({
      alpha: [50, 1, 10],
      beta: [1000, 1, 1],
      cluster: { numInstances: 3, routing: { policy: routing } },
      trace: { level: "decisions", counterfactualK: 3, ...trace },
    }),
    reqs,
  );
}

test("regret through the cluster: 0 for weighted and least-loaded; chosen − min load for round-robin and always-busiest", () => {
  for (const p of ["weighted", "least-loaded"]) {
    const r = traced(p);
    assert.equal(r.trace!.routings.length, 30);
    assert.ok(
      r.trace!.routings.every((x) => x.regret === 0),
      p,
    );
    if (p === "weighted")
      assert.ok(r.trace!.routings.every((x) => x.scores !== null && Object.keys(x.scores).length === 3));
    else assert.ok(r.trace!.routings.every((x) => x.scores === null));
  }
  for (const p of ["round-robin", "always-busiest"]) {
    const r = traced(p);
    let positive = 0;
    for (const x of r.trace!.routings) {
      const load = new Map(x.candidates.map((c) => [c.instanceId, c.queueDepth + c.batchSize + c.inFlight]));
      const min = Math.min(...load.values());
      assert.equal(x.regret, load.get(x.chosen)! - min, `${p} ${x.requestId}`);
      if (x.regret > 0) positive++;
      // candidates sorted by −load, then ID
      const order = [...x.candidates].sort((a, b) => b.score - a.score || (a.instanceId < b.instanceId ? -1 : 1));
      assert.deepEqual(x.candidates, order);
    }
    assert.ok(positive > 0, `${p} produces some regret`);
    const mean = r.trace!.routings.reduce((s, x) => s + x.regret, 0) / 30;
    assert.equal(r.metrics.trace!.meanRegret, mean);
    assert.equal(r.metrics.trace!.maxRegret, Math.max(...r.trace!.routings.map((x) => x.regret)));
  }
});

test("tracing never changes the simulation", () => {
  const a = traced("weighted");
  const b = traced("weighted", { level: "none", counterfactualK: 0 });
  assert.deepEqual(a.metrics.cluster, b.metrics.cluster);
  assert.deepEqual(a.metrics.instances, b.metrics.instances);
});

test("--summarize-trace output format (round-robin, N = 3)", async () => {
  const res = await runCli("--num-instances", "3", "--trace-level", "decisions", "--summarize-trace");
  assert.equal(res.code, 0, res.stderr.join("\n"));
  const i = res.stdout.indexOf("=== Trace Summary ===");
  assert.equal(
    res.stdout.slice(i),
    "=== Trace Summary ===\n" +
      "Total Decisions: 12\n" +
      "  Admitted: 12\n" +
      "  Rejected: 0\n" +
      "Unique Targets: 3\n" +
      "Target Distribution:\n" +
      "  instance_0: 4\n" +
      "  instance_1: 4\n" +
      "  instance_2: 4\n" +
      "Mean Regret: 0.000000\n" +
      "Max Regret: 0.000000\n",
    "last block; regret is 0 without --counterfactual-k",
  );
  const plain = await runCli("--num-instances", "3");
  assert.equal(res.stdout.slice(0, i), plain.stdout, "everything before the summary is unchanged");
});

test("--summarize-trace: distribution sorted by instance ID string; counterfactual regret printed with 6 decimals", async () => {
  const res = await runCli(
    "--num-instances",
    "12",
    "--trace-level",
    "decisions",
    "--summarize-trace",
    "--counterfactual-k",
    "12",
  );
  const i = res.stdout.indexOf("Target Distribution:\n");
  const lines = res.stdout.slice(i).split("\n").slice(1, 13);
  assert.deepEqual(
    lines.map((l) => l.split(":")[0]!.trim()),
    [
      "instance_0",
      "instance_1",
      "instance_10",
      "instance_11",
      "instance_2",
      "instance_3",
      "instance_4",
      "instance_5",
      "instance_6",
      "instance_7",
      "instance_8",
      "instance_9",
    ],
  );
  assert.match(res.stdout, /Unique Targets: 12\n/);
  assert.match(res.stdout, /Mean Regret: \d+\.\d{6}\nMax Regret: \d+\.\d{6}\n$/);
});

test("--summarize-trace with every request rejected: no distribution header", async () => {
  const res = await runCli("--admission-policy", "reject-all", "--trace-level", "decisions", "--summarize-trace");
  assert.ok(
    res.stdout.endsWith(
      "=== Trace Summary ===\nTotal Decisions: 12\n  Admitted: 0\n  Rejected: 12\nUnique Targets: 0\nMean Regret: 0.000000\nMax Regret: 0.000000\n",
    ),
    res.stdout,
  );
});

test("trace summary regret matches the library computation for round-robin", async () => {
  const res = await runCli(
    "--num-instances",
    "3",
    "--trace-level",
    "decisions",
    "--summarize-trace",
    "--counterfactual-k",
    "1",
    "--rate",
    "200",
  );
  const mean = /Mean Regret: (\S+)\n/.exec(res.stdout)![1]!;
  const max = /Max Regret: (\S+)\n/.exec(res.stdout)![1]!;
  assert.match(mean, /^\d+\.\d{6}$/);
  assert.ok(Number(max) >= Number(mean));
  assert.equal(formatFixed(Number(max), 6), max);
});

test("trace flag validation and warnings", async () => {
  const a = await runCli("--trace-level", "Decisions");
  assert.equal(a.code, 1);
  assert.deepEqual(a.stderr, ['error: Unknown trace level "Decisions". Valid: none, decisions']);
  const b = await runCli("--trace-level", "decisions", "--counterfactual-k", "-1");
  assert.deepEqual([b.code, b.stderr], [1, ["error: --counterfactual-k must be >= 0, got -1"]]);
  const cRun = await runCli("--counterfactual-k", "2", "--summarize-trace");
  const c = { ...cRun, stderr: withoutLatencyNote(cRun.stderr) };
  assert.equal(c.code, 0);
  assert.equal(c.stderr.length, 2);
  assert.ok(c.stderr[0]!.includes("--counterfactual-k has no effect without --trace-level decisions"));
  assert.ok(c.stderr[1]!.includes("--summarize-trace has no effect without"));
  assert.ok(!c.stdout.includes("Trace Summary"));
  const d = await runCli("--trace-level", "decisions", "--log", "info");
  assert.ok(d.stderr.some((l) => l.startsWith("level=info") && l.includes("--summarize-trace")));
  assert.ok(!d.stdout.includes("Trace Summary"));
  const e = await runCli("--trace-level", "", "--summarize-trace");
  assert.equal(e.code, 0, "the empty string means none");
  assert.ok(!e.stdout.includes("Trace Summary"));
});

test("a routing record over a candidate subset: chosen and scores are by position in the candidates", () => {
  const t = new DecisionTrace(2);
  const candidates = [snap(1, { inFlight: 4 }), snap(3, { inFlight: 1 })];
  t.recordRouting("r", 0, 1, "weighted-scoring (score=0.700)", Float64Array.from([0.2, 0.7, 0.9]), candidates);
  const rec = t.routings[0]!;
  assert.equal(rec.chosen, "instance_3");
  assert.deepEqual(rec.scores, { instance_1: 0.2, instance_3: 0.7 });
  assert.deepEqual(
    rec.candidates.map((c) => [c.instanceId, c.score]),
    [
      ["instance_3", 0.7],
      ["instance_1", 0.2],
    ],
  );
  assert.equal(rec.regret, 0);
  const ll = new DecisionTrace(2);
  ll.recordRouting("r", 0, 0, "least-loaded (load=4)", null, candidates);
  assert.equal(ll.routings[0]!.chosen, "instance_1");
  assert.equal(ll.routings[0]!.regret, 3, "best −1 vs chosen −4");
});
