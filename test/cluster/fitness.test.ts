// Fitness evaluation (docs/behavior.md "Output, in order", item 2).
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { evaluateFitness, parseFitnessWeights } from "../../src/metrics/fitness.js";
import { renderFitness } from "../../src/metrics/render.js";
import { LLAMA_H100_TP2, req, run, simConfig } from "../helpers/sim.js";
import { runCli } from "./helpers.js";

const VALID = "throughput, tokens_per_sec, p99_ttft, p50_ttft, mean_ttft, p99_e2e, p50_e2e, mean_e2e";

function parseErr(s: string): string {
  try {
    parseFitnessWeights(s);
  } catch (e) {
    return (e as Error).message;
  }
  return "accepted";
}

test("fitness weight parsing: trimming, repeats overwrite, zero allowed", () => {
  assert.deepEqual(
    [...parseFitnessWeights(" throughput : 1 , p99_ttft:0,throughput:3")],
    [
      ["throughput", 3],
      ["p99_ttft", 0],
    ],
  );
});

test("fitness weight parsing errors", () => {
  assert.equal(
    parseErr("throughput"),
    'Invalid fitness weights: invalid fitness weight "throughput": expected key:value',
  );
  assert.equal(parseErr("throughput:1,"), 'Invalid fitness weights: invalid fitness weight "": expected key:value');
  assert.match(parseErr("throughput:abc"), /^Invalid fitness weights: .*throughput.*abc/);
  for (const v of ["-1", "inf", "NaN", "-Inf"]) {
    assert.match(parseErr(`p99_ttft:${v}`), /^Invalid fitness weights: .*must be a finite non-negative number/, v);
  }
  assert.equal(
    parseErr("bogus:1"),
    `Fitness evaluation failed: unknown fitness metric key "bogus"; valid keys: ${VALID}`,
  );
  assert.equal(
    parseErr("zzz:1,aaa:1,throughput:1"),
    `Fitness evaluation failed: unknown fitness metric key "aaa"; valid keys: ${VALID}`,
    "sorted key order",
  );
  assert.match(
    parseErr("bogus:1,throughput:-1"),
    /must be a finite non-negative number/,
    "value errors come before the unknown-key check",
  );
});

test("score arithmetic by hand on the two-request reference timeline", () => {
  // TTFT A 21161, B 26841; E2E A 57809, B 53004; sim_ended 41868; 2 completed; 5 output tokens.
  const r = run(simConfig({ ...LLAMA_H100_TP2, kv: { totalKvBlocks: 132139 } }), [
    req("A", 0, 512, 4),
    req("B", 3000, 100, 3),
  ]);
  const w = parseFitnessWeights("throughput:2,tokens_per_sec:1,p99_ttft:0.5,mean_e2e:1,p50_e2e:0");
  const f = evaluateFitness(r.metrics, w);
  const thr = 2 / 0.041868;
  const tps = 5 / 0.041868;
  const p99ttft = 21161 + 0.99 * (26841 - 21161); // 26784.2
  const e2eMid = 53004 + 0.5 * (57809 - 53004); // p50 = mean = 55406.5
  const comp: [string, number][] = [
    ["mean_e2e", 1 / (1 + e2eMid / 1000)],
    ["p50_e2e", 1 / (1 + e2eMid / 1000)],
    ["p99_ttft", 1 / (1 + p99ttft / 1000)],
    ["throughput", thr / (thr + 100)],
    ["tokens_per_sec", tps / (tps + 10000)],
  ];
  assert.deepEqual(
    f.components.map(([k]) => k),
    comp.map(([k]) => k),
  );
  f.components.forEach(([k, v], i) => assert.ok(Math.abs(v - comp[i]![1]) < 1e-12, k));
  const score = comp[0]![1] * 1 + comp[1]![1] * 0 + comp[2]![1] * 0.5 + comp[3]![1] * 2 + comp[4]![1] * 1;
  assert.ok(Math.abs(f.score - score) < 1e-12);
  assert.equal(
    renderFitness(f),
    "=== Fitness Evaluation ===\n" +
      "Score: 0.694063\n" +
      "  mean_e2e: 0.017728\n" +
      "  p50_e2e: 0.017728\n" +
      "  p99_ttft: 0.035992\n" +
      "  throughput: 0.323269\n" +
      "  tokens_per_sec: 0.011801\n",
  );
});

test("fitness with nothing completed: rates 0, latency components 1", () => {
  const r = run(simConfig({ cluster: { admission: { policy: "reject-all" } } }), [req("A", 0, 16, 2)]);
  const f = evaluateFitness(r.metrics, parseFitnessWeights("throughput:1,mean_ttft:1,tokens_per_sec:1"));
  assert.deepEqual(f.components, [
    ["mean_ttft", 1],
    ["throughput", 0],
    ["tokens_per_sec", 0],
  ]);
  assert.equal(f.score, 1);
});

test("CLI: fitness block right after the metric blocks, before the anomaly block", async () => {
  const res = await runCli(
    "--fitness-weights",
    "throughput:1,p99_e2e:2",
    "--admission-policy",
    "token-bucket",
    "--token-bucket-capacity",
    "150",
    "--token-bucket-refill-rate",
    "800",
  );
  assert.equal(res.code, 0);
  const i = res.stdout.indexOf("=== Fitness Evaluation ===\n");
  const j = res.stdout.indexOf("=== Anomaly Counters ===\n");
  assert.ok(i > 0 && j > i, res.stdout);
  assert.ok(res.stdout.slice(0, i).endsWith("}\n"));
  assert.match(
    res.stdout.slice(i, j),
    /^=== Fitness Evaluation ===\nScore: \d+\.\d{6}\n {2}p99_e2e: \d\.\d{6}\n {2}throughput: \d\.\d{6}\n$/,
  );
});

test("CLI: invalid fitness weights exit 1 before anything is simulated, printed or written", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "blis-fit-"));
  const file = path.join(dir, "r.json");
  for (const [w, msg] of [
    ["throughput", 'error: Invalid fitness weights: invalid fitness weight "throughput": expected key:value'],
    [
      "throughput:-2",
      'error: Invalid fitness weights: weight for "throughput" must be a finite non-negative number, got -2',
    ],
    ["throughput:x", 'error: Invalid fitness weights: invalid value for "throughput": "x" is not a number'],
    ["speed:1", `error: Fitness evaluation failed: unknown fitness metric key "speed"; valid keys: ${VALID}`],
    ["latency:1", `error: Fitness evaluation failed: unknown fitness metric key "latency"; valid keys: ${VALID}`],
  ] as const) {
    const res = await runCli(
      "--fitness-weights",
      w,
      "--results-path",
      file,
      "--admission-policy",
      "token-bucket",
      "--token-bucket-capacity",
      "150",
    );
    assert.equal(res.code, 1, w);
    assert.equal(res.stdout, "", `${w}: nothing on stdout`);
    assert.deepEqual(res.stderr, [msg]);
    assert.ok(!fs.existsSync(file), `${w}: no results file`);
  }
  fs.rmSync(dir, { recursive: true });
});
