import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import fc from "fast-check";
import { FC_SEED } from "../helpers/fc.js";
import { ConstructionError } from "../../src/util/errors.js";
import type { StepRequestView } from "../../src/latency/model.js";
import { loadHardwareConfig, type HardwareCalib } from "../../src/latency/hardwareConfig.js";
import { loadModelConfigFile, type ModelConfig } from "../../src/latency/modelConfig.js";
import {
  RooflineLatencyModel,
  formatGoFloat,
  roundHalfAwayFromZero,
  rooflineConfigProblems,
  rooflineRequestTerms,
} from "../../src/latency/roofline.js";
import { DATA_DIR } from "./helpers.js";

const H100 = loadHardwareConfig(join(DATA_DIR, "hardware_config.json"), "H100");

/**
 * The reference llama-3.1-8b shape (docs/behavior.md "Reference numbers"), written out (independent
 * of the bundled config file).
 */
const LLAMA_8B: ModelConfig = {
  numLayers: 32,
  hiddenSize: 4096,
  numHeads: 32,
  numKVHeads: 8,
  intermediateSize: 14336,
  bytesPerParam: 2,
  vocabSize: 128256,
};

const prefill = (pi: number, n: number, inputLen: number): StepRequestView => ({
  pi,
  inputLen,
  outputLen: 100,
  numNewTokens: n,
});
const decode = (s: number): StepRequestView => ({ pi: s, inputLen: s, outputLen: 100, numNewTokens: 1 });

const TABLE: ReadonlyArray<{ name: string; batch: StepRequestView[]; tp1: number; tp2: number }> = [
  { name: "empty", batch: [], tp1: 1140, tp2: 2420 },
  { name: "one prefill, s = 0, n = 512", batch: [prefill(0, 512, 512)], tp1: 12367, tp2: 8033 },
  { name: "one decode at s = 512", batch: [decode(512)], tp1: 6955, tp2: 5328 },
  { name: "prefill + decode", batch: [prefill(0, 512, 512), decode(512)], tp1: 18182, tp2: 10941 },
  { name: "prefill chunk s = 1024, n = 256, L = 2048", batch: [prefill(1024, 256, 2048)], tp1: 7025, tp2: 5362 },
  { name: "64 decodes at s = 1000", batch: Array.from({ length: 64 }, () => decode(1000)), tp1: 10415, tp2: 7058 },
];

test("seed roofline table: llama-3.1-8b shape on the bundled H100, TP 1 and TP 2 (exact)", () => {
  const m1 = new RooflineLatencyModel(LLAMA_8B, H100, 1, [0, 0, 0]);
  const m2 = new RooflineLatencyModel(LLAMA_8B, H100, 2, [0, 0, 0]);
  for (const row of TABLE) {
    assert.equal(m1.stepTime(row.batch, row.batch.length), row.tp1, `TP1 ${row.name}`);
    assert.equal(m2.stepTime(row.batch, row.batch.length), row.tp2, `TP2 ${row.name}`);
  }
});

test("seed roofline table with the bundled llama-3.1-8b-instruct config.json", () => {
  const cfg = loadModelConfigFile(join(DATA_DIR, "model_configs", "llama-3.1-8b-instruct", "config.json"));
  for (const tp of [1, 2] as const) {
    const m = new RooflineLatencyModel(cfg, H100, tp, [0, 0, 0]);
    for (const row of TABLE) {
      assert.equal(m.stepTime(row.batch, row.batch.length), tp === 1 ? row.tp1 : row.tp2, `TP${tp} ${row.name}`);
    }
  }
});

test("seed roofline hand check: GEMM, vector, weight and dynamic terms of the 512-token prefill", () => {
  const t = rooflineRequestTerms(LLAMA_8B, 0, 512);
  assert.equal(t.gemmFlops, 7215410839552);
  assert.equal(t.vectorFlops, 803995648);
  assert.equal(t.weightBytes, 13958643712);
  assert.equal(t.dynamicBytes, 201326592);
  // TP 2 halves.
  assert.equal(t.gemmFlops / 2, 3607705419776);
  assert.equal(t.vectorFlops / 2, 401997824);
  assert.equal(t.weightBytes / 2, 6979321856);
  assert.equal(t.dynamicBytes / 2, 100663296);
});

test("per-request terms: ctx rule and byte decomposition", () => {
  // n ≤ 1: ctx = s. Decode at s = 512: attention uses ctx 512.
  const d = rooflineRequestTerms(LLAMA_8B, 512, 1);
  const L = 32;
  const expectedGemm =
    (2 * 1 * (4096 * 4096 + 2 * 4096 * 1024) + 2 * 1 * 4096 * 4096) * L +
    4 * 32 * 1 * 512 * 128 * L +
    2 * 1 * (3 * 4096 * 14336) * L;
  assert.equal(d.gemmFlops, expectedGemm);
  assert.equal(d.vectorFlops, (5 * 32 * 512 + 2 * 4096) * L);
  const kvPerToken = 2 * L * 8 * 128 * 2;
  assert.equal(d.dynamicBytes, L * 4096 * 2 * 1 + kvPerToken * 512 + kvPerToken * 1);
  // n > 1: ctx = s + (n − 1)/2.
  const c = rooflineRequestTerms(LLAMA_8B, 1024, 256);
  assert.equal(c.vectorFlops, (5 * 32 * 256 * (1024 + 127.5) + 2 * 256 * 4096) * L);
  // n = 0 still reads the KV of its context.
  const z = rooflineRequestTerms(LLAMA_8B, 64, 0);
  assert.equal(z.gemmFlops, 0);
  assert.equal(z.dynamicBytes, kvPerToken * 64);
});

test("d_ff defaults to 4·d and H_kv to H when absent", () => {
  const mha: ModelConfig = { ...LLAMA_8B, numKVHeads: 0, intermediateSize: 0 };
  const t = rooflineRequestTerms(mha, 0, 1);
  const d = 4096;
  assert.equal(t.weightBytes, (d * (d + 2 * d) + d * d + 3 * d * (4 * d)) * 32 * 2);
});

test("decode uses n = 1 regardless of NumNewTokens; O = 0 past the prompt is invisible", () => {
  const m = new RooflineLatencyModel(LLAMA_8B, H100, 1, [0, 0, 0]);
  const odd: StepRequestView = { pi: 512, inputLen: 512, outputLen: 5, numNewTokens: 7 };
  assert.equal(m.stepTime([odd], 1), 6955);
  const done: StepRequestView = { pi: 512, inputLen: 512, outputLen: 0, numNewTokens: 1 };
  assert.equal(m.stepTime([done], 1), 1140);
});

test("a zero-token prefill makes the prefill phase present (weights charged)", () => {
  const m = new RooflineLatencyModel(LLAMA_8B, H100, 1, [0, 0, 0]);
  const zero = prefill(0, 0, 32);
  const t = m.stepTime([zero], 1);
  // Memory bound: weights / BW.
  const bw = 3.35 * 1e12 * 0.72;
  const expected = roundHalfAwayFromZero(((13958643712 + 0) / bw) * 1e6 + ((32 * 20) / 1e6) * 1e6 + 500);
  assert.equal(t, expected);
  assert.ok(t > 1140);
  // A mixed batch pays the weights twice.
  const both = m.stepTime([zero, decode(0)], 2);
  assert.ok(both > t + 5000);
});

test("only batch[0..count) is read", () => {
  const m = new RooflineLatencyModel(LLAMA_8B, H100, 2, [0, 0, 0]);
  const batch = [prefill(0, 512, 512), decode(512), decode(512)];
  assert.equal(m.stepTime(batch, 1), 8033);
  assert.equal(m.stepTime(batch, 0), 2420);
});

test("step time: non-decreasing in the number of decodes (property)", () => {
  const m = new RooflineLatencyModel(LLAMA_8B, H100, 2, [0, 0, 0]);
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 200 }), fc.integer({ min: 0, max: 8192 }), (k, s) => {
      const batch = Array.from({ length: k + 1 }, () => decode(s));
      return m.stepTime(batch, k + 1) >= m.stepTime(batch, k);
    }),
    { seed: FC_SEED },
  );
});

test("alpha terms are the blackbox ones", () => {
  const m = new RooflineLatencyModel(LLAMA_8B, H100, 2, [1601.350510688092, 3.512476196805965, 1805.5430360826988]);
  assert.equal(m.queueingTime(512), 3399);
  assert.equal(m.outputTokenProcessingTime(), 1805);
});

test("roundHalfAwayFromZero", () => {
  assert.equal(roundHalfAwayFromZero(2.5), 3);
  assert.equal(roundHalfAwayFromZero(-2.5), -3);
  assert.equal(roundHalfAwayFromZero(-0.5), -1);
  assert.equal(roundHalfAwayFromZero(0.49999999999999994), 0);
  assert.equal(roundHalfAwayFromZero(-0.49999999999999994), 0);
  assert.ok(Object.is(roundHalfAwayFromZero(-0.2), 0));
  assert.equal(roundHalfAwayFromZero(4503599627370495.5), 4503599627370496);
  assert.equal(roundHalfAwayFromZero(1e300), 1e300);
  fc.assert(
    fc.property(fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e15, max: 1e15 }), (x) => {
      const r = roundHalfAwayFromZero(x);
      return Number.isInteger(r) && Math.abs(x - r) <= 0.5 && roundHalfAwayFromZero(-x) === -r + 0;
    }),
    { seed: FC_SEED },
  );
});

test("formatGoFloat prints like Go's %v", () => {
  assert.equal(formatGoFloat(0), "0");
  assert.equal(formatGoFloat(-1.5), "-1.5");
  assert.equal(formatGoFloat(989.5), "989.5");
  assert.equal(formatGoFloat(NaN), "NaN");
  assert.equal(formatGoFloat(Infinity), "+Inf");
  assert.equal(formatGoFloat(-Infinity), "-Inf");
  assert.equal(formatGoFloat(123456), "123456");
  assert.equal(formatGoFloat(1e6), "1e+06");
  assert.equal(formatGoFloat(1234567), "1.234567e+06");
  assert.equal(formatGoFloat(0.0001), "0.0001");
  assert.equal(formatGoFloat(0.00001), "1e-05");
  assert.equal(formatGoFloat(1e100), "1e+100");
});

// ----- validation -----

function constructionMessage(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof ConstructionError, `expected ConstructionError, got ${String(e)}`);
    return (e as Error).message;
  }
  assert.fail("expected a ConstructionError");
}

test("validation: TP must be > 0", () => {
  assert.equal(
    constructionMessage(() => new RooflineLatencyModel(LLAMA_8B, H100, 0, [0, 0, 0])),
    "latency model: roofline requires TP > 0, got 0",
  );
  assert.equal(
    constructionMessage(() => new RooflineLatencyModel(LLAMA_8B, H100, -2, [0, 0, 0])),
    "latency model: roofline requires TP > 0, got -2",
  );
});

test("validation: alpha is checked first", () => {
  assert.equal(
    constructionMessage(() => new RooflineLatencyModel(LLAMA_8B, H100, 0, [0, 0])),
    "latency model: AlphaCoeffs requires at least 3 elements, got 2",
  );
  assert.equal(
    constructionMessage(() => new RooflineLatencyModel(LLAMA_8B, H100, 1, [0, NaN, 0])),
    "latency model: AlphaCoeffs[1] is NaN",
  );
});

test("validation: every problem, joined with '; '", () => {
  const badModel: ModelConfig = { ...LLAMA_8B, numHeads: 0, numLayers: -1, hiddenSize: 0, bytesPerParam: 0 };
  const badHw: HardwareCalib = {
    ...H100,
    tFlopsPeak: 0,
    bwPeakTBs: NaN,
    bwEffConstant: -0.5,
    mfuPrefill: Infinity,
    mfuDecode: 0,
    memoryGiB: -1,
  };
  assert.equal(
    constructionMessage(() => new RooflineLatencyModel(badModel, badHw, 1, [0, 0, 0])),
    "latency model: invalid roofline config: " +
      "ModelConfig.NumHeads must be > 0, got 0; " +
      "ModelConfig.NumLayers must be > 0, got -1; " +
      "ModelConfig.HiddenDim must be > 0, got 0; " +
      "ModelConfig.BytesPerParam must be a valid positive number, got 0; " +
      "HardwareCalib.TFlopsPeak must be a valid positive number, got 0; " +
      "HardwareCalib.BwPeakTBs must be a valid positive number, got NaN; " +
      "HardwareCalib.BwEffConstant must be a valid positive number, got -0.5; " +
      "HardwareCalib.MfuPrefill must be a valid positive number, got +Inf; " +
      "HardwareCalib.MfuDecode must be a valid positive number, got 0; " +
      "HardwareCalib.MemoryGiB must be > 0 and finite when set, got -1",
  );
});

test("validation: single problem; MemoryGiB 0 and unvalidated fields are accepted", () => {
  assert.equal(
    constructionMessage(() => new RooflineLatencyModel({ ...LLAMA_8B, bytesPerParam: 0 }, H100, 1, [0, 0, 0])),
    "latency model: invalid roofline config: ModelConfig.BytesPerParam must be a valid positive number, got 0",
  );
  const loose: HardwareCalib = {
    ...H100,
    memoryGiB: 0,
    tOverheadMicros: -5,
    perLayerOverhead: 0,
    allReduceLatency: -1,
  };
  assert.deepEqual(
    rooflineConfigProblems({ ...LLAMA_8B, numKVHeads: 0, intermediateSize: 0, vocabSize: -1 }, loose),
    [],
  );
  assert.doesNotThrow(() => new RooflineLatencyModel(LLAMA_8B, loose, 4, [0, 0, 0]));
  assert.equal(
    constructionMessage(() => new RooflineLatencyModel(LLAMA_8B, { ...H100, memoryGiB: NaN }, 1, [0, 0, 0])),
    "latency model: invalid roofline config: HardwareCalib.MemoryGiB must be > 0 and finite when set, got NaN",
  );
});
