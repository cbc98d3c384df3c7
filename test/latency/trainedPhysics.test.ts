import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ConstructionError } from "../../src/util/errors.js";
import type { StepRequestView } from "../../src/latency/model.js";
import { loadHardwareConfig } from "../../src/latency/hardwareConfig.js";
import { parseArchConfig, type ArchConfig } from "../../src/latency/archConfig.js";
import { loadCoefficientFile } from "../../src/latency/coefficientFile.js";
import { TrainedPhysicsLatencyModel, type TrainedPhysicsParams } from "../../src/latency/trainedPhysics.js";
import { DATA_DIR } from "./helpers.js";

const H100 = loadHardwareConfig(join(DATA_DIR, "head", "hardware_config.json"), "H100");
const COEFFS = loadCoefficientFile(join(DATA_DIR, "head", "trained-physics.yaml")).trained_physics_coefficients;

function arch(dir: string, model: string): ArchConfig {
  return parseArchConfig(readFileSync(join(DATA_DIR, "model_configs", dir, "config.json"), "utf8"), model, dir);
}
const LLAMA = arch("llama-3.1-8b-instruct", "meta-llama/llama-3.1-8b-instruct");
const MIXTRAL = arch("mixtral-8x7b-v0.1", "mistralai/mixtral-8x7b-v0.1");
const SCOUT = arch("llama-4-scout-17b-16e-instruct-fp8-dynamic", "redhatai/llama-4-scout-17b-16e-instruct-fp8-dynamic");

function model(a: ArchConfig, tp: number, over: Partial<TrainedPhysicsParams> = {}): TrainedPhysicsLatencyModel {
  return new TrainedPhysicsLatencyModel(a, H100, {
    alpha: COEFFS.alpha_coeffs,
    beta: COEFFS.beta_coeffs,
    tp,
    dp: 1,
    moeCommBackend: "",
    ...over,
  });
}

const pf = (inputLen: number, pi: number, n: number): StepRequestView => ({
  pi,
  inputLen,
  outputLen: 64,
  numNewTokens: n,
});
const dc = (pi: number): StepRequestView => ({ pi, inputLen: 100, outputLen: 4096, numNewTokens: 1 });
const step = (m: TrainedPhysicsLatencyModel, b: StepRequestView[]): number => m.stepTime(b, b.length);

const A = [pf(512, 0, 512)];
const B = [dc(1024)];
const C = [pf(512, 0, 512), dc(1024), dc(1024), dc(1024), dc(1024)];
const CHUNK = [pf(2048, 1024, 256)];
const DEC64 = Array.from({ length: 64 }, () => dc(1000));

test("Llama-3.1-8B batch C: 8295 (TP 1), 4795 (TP 2)", () => {
  assert.equal(step(model(LLAMA, 1), C), 8295);
  assert.equal(step(model(LLAMA, 2), C), 4795);
});

test("Llama-3.1-8B batch table, TP 1 and TP 2", () => {
  const rows: [string, StepRequestView[], number, number][] = [
    ["empty", [], 1, 1],
    ["A", A, 7965, 4621],
    ["decode at 512", [dc(512)], 6873, 4015],
    ["A + decode at 512", [...A, dc(512)], 8008, 4645],
    ["chunk", CHUNK, 7429, 4323],
    ["B", B, 6912, 4035],
    ["C", C, 8295, 4795],
    ["64 decodes at 1000", DEC64, 11993, 6722],
  ];
  for (const [name, b, tp1, tp2] of rows) {
    assert.equal(step(model(LLAMA, 1), b), tp1, `${name} TP1`);
    assert.equal(step(model(LLAMA, 2), b), tp2, `${name} TP2`);
  }
});

test("unscheduled requests (no new tokens) are not part of the step", () => {
  const idle: StepRequestView = { pi: 2000, inputLen: 100, outputLen: 4096, numNewTokens: 0 };
  assert.equal(step(model(LLAMA, 1), [...C, idle]), 8295);
  assert.equal(step(model(LLAMA, 1), [idle]), 1);
});

test("decode step time depends only on PI (any prompt length up to PI)", () => {
  const m = model(LLAMA, 1);
  const a: StepRequestView = { pi: 512, inputLen: 512, outputLen: 10, numNewTokens: 1 };
  const b: StepRequestView = { pi: 512, inputLen: 3, outputLen: 10, numNewTokens: 1 };
  assert.equal(step(m, [a]), step(m, [b]));
});

test("Mixtral-8x7B TP 2 batch C: 21289; DP 2 all-gather 11512, deepep_low_latency 11535, β_EP 2.0 11550", () => {
  assert.equal(step(model(MIXTRAL, 2), C), 21289);
  assert.equal(step(model(MIXTRAL, 2, { dp: 2 }), C), 11512);
  assert.equal(step(model(MIXTRAL, 2, { dp: 2, moeCommBackend: "deepep_low_latency" }), C), 11535);
  const beta11 = [...COEFFS.beta_coeffs];
  beta11[10] = 2.0;
  assert.equal(step(model(MIXTRAL, 2, { dp: 2, beta: beta11 }), C), 11550);
});

test("Mixtral batch table (TP 1, TP 2, TP 2 dp 2)", () => {
  const rows: [string, StepRequestView[], number, number, number][] = [
    ["A", A, 40951, 21114, 11416],
    ["B", B, 39011, 20084, 10894],
    ["chunk", CHUNK, 39971, 20594, 11152],
    ["64 decodes", DEC64, 44092, 22771, 12377],
  ];
  for (const [name, b, tp1, tp2, dp2] of rows) {
    assert.equal(step(model(MIXTRAL, 1), b), tp1, `${name} TP1`);
    assert.equal(step(model(MIXTRAL, 2), b), tp2, `${name} TP2`);
    assert.equal(step(model(MIXTRAL, 2, { dp: 2 }), b), dp2, `${name} TP2 dp2`);
  }
});

test("Llama-4-Scout FP8 (interleaved MoE) TP 2: C 25760, A 25507, 64 decodes 28857", () => {
  assert.equal(SCOUT.weightBytes, 1);
  assert.equal(SCOUT.activationBytes, 2);
  const m = model(SCOUT, 2);
  assert.equal(step(m, C), 25760);
  assert.equal(step(m, A), 25507);
  assert.equal(step(m, DEC64), 28857);
});

test("compat (docs/behavior.md#v5): 7 to 9 betas use the max form, and β2a = 0 zeroes the decode term (C gives 7982)", () => {
  for (const n of [7, 8, 9]) {
    assert.equal(step(model(LLAMA, 1, { beta: COEFFS.beta_coeffs.slice(0, n) }), C), 7982, `${n} betas`);
  }
});

test("alpha hooks: queueing 15563, output processing 45, post-decode 777", () => {
  const m = model(LLAMA, 1);
  assert.equal(m.queueingTime(), 15563);
  assert.equal(m.outputTokenProcessingTime(), 45);
  assert.equal(m.postDecodeOverhead(), 777);
  assert.equal(m.timeline, "current");
});

test("construction errors, in order", () => {
  const msg = (f: () => unknown): string => {
    try {
      f();
    } catch (e) {
      assert.ok(e instanceof ConstructionError, String(e));
      return e.message;
    }
    assert.fail("no error");
  };
  assert.equal(
    msg(() => model(LLAMA, 1, { alpha: [1, 2] })),
    "latency model: AlphaCoeffs requires at least 3 elements, got 2",
  );
  assert.equal(
    msg(() => model(LLAMA, 1, { alpha: [1, NaN, 2] })),
    "latency model: AlphaCoeffs[1] is NaN",
  );
  assert.equal(
    msg(() => model(LLAMA, 1, { alpha: [1, -0.5, 2] })),
    "latency model: AlphaCoeffs[1] must be non-negative, got -0.500000",
  );
  assert.equal(
    msg(() => model(LLAMA, 1, { beta: [1, 2, 3] })),
    "trained-physics model: BetaCoeffs requires at least 7 elements, got 3 (expected β₁-β₇, optionally β₈)",
  );
  assert.match(
    msg(() => model(LLAMA, 1, { moeCommBackend: "mpi" })),
    /unknown MoE comm backend "mpi" \(valid: \[naive allgather_reducescatter pplx/,
  );
  assert.equal(
    msg(() => model(LLAMA, 0)),
    "trained-physics model: TP must be > 0, got 0",
  );
  assert.equal(
    msg(() => model(LLAMA, 3)),
    "trained-physics model: NumHeads (32) must be divisible by TP (3)",
  );
  assert.equal(
    msg(() => model(LLAMA, 16)),
    "trained-physics model: NumKVHeads (8) must be divisible by TP (16)",
  );
  const badBeta = [...COEFFS.beta_coeffs];
  badBeta[4] = Infinity;
  assert.equal(
    msg(() => model(LLAMA, 1, { beta: badBeta })),
    "latency model: BetaCoeffs[4] is Inf",
  );
});

test("single-request timeline on an idle instance (TP 1, L_p 512, O 4): TTFT 23573, E2E 45105", () => {
  // Step times of the four steps the request takes (prefill, then decodes at PI 512, 513, 514).
  const m = model(LLAMA, 1);
  const q = m.queueingTime();
  const a2 = m.outputTokenProcessingTime();
  let t = q;
  const d1 = step(m, [pf(512, 0, 512)]);
  const ttft = t + d1 + a2;
  t += d1;
  const itl: number[] = [];
  for (const pi of [512, 513, 514]) {
    const d = step(m, [{ pi, inputLen: 512, outputLen: 4, numNewTokens: 1 }]);
    itl.push(d + a2);
    t += d;
  }
  assert.equal(ttft, 23573);
  assert.deepEqual(itl, [6918, 6918, 6919]);
  assert.equal(t, 44148);
  assert.equal(ttft + itl.reduce((x, y) => x + y, 0) + m.postDecodeOverhead(), 45105);
});
