import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { runCells, SweepPool, type SweepReport } from "../../src/experiment/index.js";
import { blis, MODEL, records, tmpDir, writePlan } from "./helpers.js";

const PLAN = `name: e2e
seeds: [7, 8]
timeout_s: 120
base:
  flags:
    model: ${MODEL}
    num-requests: 60
    rate: 200
    log: error
axes:
  - name: instances
    flag: num-instances
    values: [1, 2]
baseline: instances=1
metrics: [ttft_p99, e2e_mean, throughput, completed, cache_hit_rate]
checks:
  determinism: true
  monotonic: {axis: instances, metric: ttft_p99, direction: decreasing}
`;

test("a small plan end to end through the CLI: tables, conservation and determinism PASS", () => {
  const dir = tmpDir("e2e");
  const plan = writePlan(dir, "plan.yaml", PLAN);
  const out = path.join(dir, "out");
  const r = blis(["sweep", plan, "--out", out, "--jobs", "2"]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^=== Sweep: e2e ===$/m);
  assert.match(r.stdout, /--- Conservation: PASS ---/);
  assert.match(r.stdout, /--- Determinism: PASS ---/);
  assert.match(r.stdout, /monotonic: ttft_p99 decreasing along instances\s+PASS/);
  assert.match(r.stdout, /vs baseline instances=1\s+ttft_p99\s+instances=2\s+instances=1/);
  for (const f of [
    "plan.json",
    "runs.jsonl",
    "tables.md",
    "tables.csv",
    "summary.json",
    "csv/per_seed.csv",
    "csv/summary.csv",
    "csv/ratios.csv",
  ]) {
    assert.ok(fs.existsSync(path.join(out, f)), f);
  }
  // 2 configs × 2 seeds × 2 (determinism), every run ok.
  const recs = records(out);
  assert.equal(recs.length, 8);
  assert.ok(recs.every((x) => x["status"] === "ok"));
  const report = JSON.parse(fs.readFileSync(path.join(out, "summary.json"), "utf8")) as SweepReport;
  assert.deepEqual(
    report.checks.map((c) => [c.check, c.result]),
    [
      ["conservation", "PASS"],
      ["determinism", "PASS"],
      ["monotonic: ttft_p99 decreasing along instances", "PASS"],
    ],
  );
  assert.equal(report.per_seed.length, 4);
  assert.deepEqual(
    report.per_seed.map((p) => [p.config, p.seed]),
    [
      ["instances=1", 7],
      ["instances=1", 8],
      ["instances=2", 7],
      ["instances=2", 8],
    ],
  );
  const s = report.summary.find((x) => x.config === "instances=2" && x.metric === "completed")!;
  assert.deepEqual([s.mean, s.min, s.max, s.n_valid, s.n], [60, 60, 60, 2, 2]);
  const ratio = report.ratios.find((x) => x.metric === "ttft_p99")!;
  assert.equal(ratio.per_seed.length, 2);
  assert.equal(ratio.below_1, "2/2");
  // The stdout file is exactly what `blis run` prints for that configuration and seed.
  const direct = blis([
    "run",
    "--model",
    MODEL,
    "--num-requests",
    "60",
    "--rate",
    "200",
    "--num-instances",
    "2",
    "--seed",
    "8",
    "--log",
    "error",
  ]);
  assert.equal(direct.code, 0);
  assert.equal(fs.readFileSync(path.join(out, "instances=2", "8.txt"), "utf8"), direct.stdout);
  assert.equal(fs.readFileSync(path.join(out, "instances=2", "8.run2.txt"), "utf8"), direct.stdout);
  // Rerunning resumes: nothing to run, same tables; --format json prints summary.json.
  const again = blis(["sweep", "--plan", plan, "--out", out, "--format", "json"]);
  assert.equal(again.code, 0, again.stderr);
  assert.equal(again.stdout, fs.readFileSync(path.join(out, "summary.json"), "utf8"));
  assert.match(again.stderr, /8 already finished, 0 to run/);
  assert.equal(records(out).length, 8);
  const csv = blis(["sweep", plan, "--out", out, "--format", "csv"]);
  assert.equal(csv.stdout, fs.readFileSync(path.join(out, "tables.csv"), "utf8"));
  assert.match(csv.stdout, /^# per_seed\nconfig,seed,status,ttft_p99,e2e_mean,throughput,completed,cache_hit_rate\n/);
});

test("library: runCells on in-memory configurations with a reusable pool", async () => {
  const pool = new SweepPool(2);
  try {
    const cells = [
      { label: "rr", input: { model: MODEL, numRequests: 40, rate: 100, numInstances: 2 } },
      {
        label: "ll",
        input: { model: MODEL, numRequests: 40, rate: 100, numInstances: 2, routingPolicy: "least-loaded" },
      },
    ];
    const res = await runCells(cells, {
      seeds: [1, 2],
      pool,
      baseline: "rr",
      metrics: ["ttft_mean", "completed"],
      checks: { determinism: true },
    });
    assert.equal(res.exitStatus, 0);
    assert.equal(res.executed, 8);
    assert.equal(res.outDir, null);
    assert.equal(res.report.determinism?.result, "PASS");
    assert.equal(res.report.conservation?.result, "PASS");
    assert.deepEqual(
      res.report.ratios.map((r) => [r.numerator, r.denominator, r.metric]),
      [
        ["ll", "rr", "ttft_mean"],
        ["ll", "rr", "completed"],
      ],
    );
    // Same pool, second evaluation.
    const res2 = await runCells([cells[1]!], { seeds: [3], pool, metrics: ["completed"] });
    assert.equal(res2.report.per_seed[0]!.values["completed"], 40);
  } finally {
    await pool.close();
  }
});
