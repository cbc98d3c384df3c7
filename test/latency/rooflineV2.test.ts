import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { FC_SEED } from "../helpers/fc.js";
import { ConstructionError } from "../../src/util/errors.js";
import type { ArchConfig } from "../../src/latency/archConfig.js";
import type { HardwareCalib } from "../../src/latency/hardwareConfig.js";
import type { StepRequestView } from "../../src/latency/model.js";
import { RooflineV2LatencyModel, rooflineV2ConfigProblems } from "../../src/latency/rooflineV2.js";
import { LLAMA_8B, MIXTRAL, SCOUT_FP8, bundledArch, currentHardware } from "./archHelpers.js";

const H100 = currentHardware("H100");
const llama = bundledArch(LLAMA_8B, "meta-llama/llama-3.1-8b-instruct");
const mixtral = bundledArch(MIXTRAL, "mistralai/mixtral-8x7b-v0.1");
const scout = bundledArch(SCOUT_FP8, "redhatai/llama-4-scout-17b-16e-instruct-fp8-dynamic");

const prefill = (pi: number, n: number, inputLen: number): StepRequestView => ({
  pi,
  inputLen,
  outputLen: 100,
  numNewTokens: n,
});
/** A decode at PI p: the prompt is done (inputLen ≤ p), output remains, one new token. */
const decode = (p: number): StepRequestView => ({ pi: p, inputLen: p, outputLen: 100, numNewTokens: 1 });
const decodes = (k: number, p: number): StepRequestView[] => Array.from({ length: k }, () => decode(p));
const step = (m: RooflineV2LatencyModel, batch: StepRequestView[]): number => m.stepTime(batch, batch.length);

test("hand check: Llama-3.1-8B, TP 1, one decode at PI 512 (FLOPs, bytes, 3065)", () => {
  const m = new RooflineV2LatencyModel(llama, H100, 1);
  assert.equal(m.requestFlops(512, 1), 2684354560 + 268435456 + 2883584 + 7516192768);
  assert.equal(m.requestFlops(512, 1), 10471866368);
  assert.equal(m.weightBytes(1), 10200547328); // 5100273664 params · 2
  assert.equal(m.requestDynamicBytes(512, 1), 131072 + 67108864 + 262144);
  assert.equal(step(m, [decode(512)]), 3065);
});

const TABLE: ReadonlyArray<{ name: string; batch: StepRequestView[]; tp1: number; tp2: number }> = [
  { name: "empty", batch: [], tp1: 1, tp2: 1 },
  { name: "prefill s 0, n 512", batch: [prefill(0, 512, 512)], tp1: 11884, tp2: 5942 },
  { name: "decode at 512", batch: [decode(512)], tp1: 3065, tp2: 1532 },
  { name: "both", batch: [prefill(0, 512, 512), decode(512)], tp1: 11920, tp2: 5960 },
  { name: "chunk s 1024, n 256 (L 2048)", batch: [prefill(1024, 256, 2048)], tp1: 6215, tp2: 3107 },
  { name: "64 decodes at 1000", batch: decodes(64, 1000), tp1: 5556, tp2: 2778 },
];

test("the engine batch table at the current reference: Llama-3.1-8B on H100, TP 1 and TP 2", () => {
  const m1 = new RooflineV2LatencyModel(llama, H100, 1);
  const m2 = new RooflineV2LatencyModel(llama, H100, 2);
  for (const row of TABLE) {
    assert.equal(step(m1, row.batch), row.tp1, `TP1 ${row.name}`);
    assert.equal(step(m2, row.batch), row.tp2, `TP2 ${row.name}`);
  }
});

test("Mixtral-8x7B, H100, TP 2", () => {
  const m = new RooflineV2LatencyModel(mixtral, H100, 2);
  assert.equal(step(m, [prefill(0, 512, 512)]), 10263);
  assert.equal(step(m, [decode(1024)]), 2664);
  const batchC = [prefill(0, 512, 512), ...decodes(4, 1024)];
  assert.equal(step(m, batchC), 10386);
  assert.equal(step(m, decodes(64, 1000)), 10630);
});

test("MoE weights: nEff = N·(1 − ((N − k)/N)^T) routed experts are read per step", () => {
  const m = new RooflineV2LatencyModel(mixtral, H100, 2);
  const d = 4096;
  const attention = (d * (d + 2 * 1024) + d * d) * 32;
  const expert = 2 * d * 14336; // two matrices
  // One token routes to k = 2 experts.
  assert.equal(m.weightBytes(1), (attention + expert * 2 * 32) * 2);
  // Two tokens: 8·(1 − (6/8)²) = 3.5 expected distinct experts.
  assert.equal(m.weightBytes(2), (attention + expert * 3.5 * 32) * 2);
  // Many tokens: every expert is read.
  assert.ok(Math.abs(m.weightBytes(10000) - (attention + expert * 8 * 32) * 2) < 1);
  // A dense model reads the same weights whatever the token count.
  const dense = new RooflineV2LatencyModel(llama, H100, 1);
  assert.equal(dense.weightBytes(1), dense.weightBytes(4096));
});

test("requests without new tokens are not part of the step", () => {
  const m = new RooflineV2LatencyModel(llama, H100, 1);
  const idlePrefill = prefill(0, 0, 512);
  const idleDecode: StepRequestView = { ...decode(4096), numNewTokens: 0 };
  assert.equal(step(m, [idlePrefill, idleDecode]), 1);
  assert.equal(step(m, [idlePrefill, decode(512), idleDecode]), 3065);
  const mx = new RooflineV2LatencyModel(mixtral, H100, 2);
  assert.equal(step(mx, [idleDecode, decode(1024), idlePrefill]), 2664);
});

test("a decode counts one token whatever NumNewTokens says; past the prompt without output adds nothing", () => {
  const m = new RooflineV2LatencyModel(mixtral, H100, 2);
  assert.equal(step(m, [{ ...decode(1024), numNewTokens: 5 }]), 2664);
  const noOutput: StepRequestView = { pi: 600, inputLen: 512, outputLen: 0, numNewTokens: 1 };
  assert.equal(step(m, [noOutput]), 1);
  assert.equal(step(m, [noOutput, decode(1024)]), 2664);
});

test("only batch[0..count) is read", () => {
  const m = new RooflineV2LatencyModel(llama, H100, 2);
  const batch = [prefill(0, 512, 512), decode(512), decode(512)];
  assert.equal(m.stepTime(batch, 1), 5942);
  assert.equal(m.stepTime(batch, 0), 1);
});

test("FP8 peak: one-byte weights on a GPU with TFlopsFP8; W4A16 keeps the BF16 peak", () => {
  const fp8 = new RooflineV2LatencyModel(scout, H100, 2);
  const noFp8 = new RooflineV2LatencyModel(scout, { ...H100, tFlopsFP8: 0 }, 2);
  const big = [prefill(0, 2048, 2048)];
  // Compute-bound prefill: the FP8 rate halves the compute time.
  assert.ok(step(noFp8, big) > 1.9 * step(fp8, big), `${step(noFp8, big)} vs ${step(fp8, big)}`);
  const w4: ArchConfig = { ...scout, weightBytes: 0.5 };
  assert.equal(
    step(new RooflineV2LatencyModel(w4, H100, 2), big),
    step(new RooflineV2LatencyModel(w4, { ...H100, tFlopsFP8: 0 }, 2), big),
  );
});

test("alpha hooks are zero and the timeline is the current one", () => {
  const m = new RooflineV2LatencyModel(llama, H100, 1);
  assert.equal(m.timeline, "current");
  assert.equal(m.queueingTime(4096), 0);
  assert.equal(m.outputTokenProcessingTime(), 0);
  assert.equal(m.postDecodeOverhead(), 0);
});

test("step time: non-decreasing in the number of decodes, and zero-token requests change nothing (property)", () => {
  const models = [new RooflineV2LatencyModel(llama, H100, 2), new RooflineV2LatencyModel(mixtral, H100, 2)];
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: 1 }),
      fc.integer({ min: 0, max: 100 }),
      fc.integer({ min: 0, max: 8192 }),
      fc.integer({ min: 0, max: 4 }),
      (which, k, s, idle) => {
        const m = models[which]!;
        const batch = decodes(k + 1, s);
        const padded = [...batch, ...Array.from({ length: idle }, () => ({ ...decode(s), numNewTokens: 0 }))];
        return m.stepTime(batch, k + 1) >= m.stepTime(batch, k) && step(m, padded) === step(m, batch);
      },
    ),
    { seed: FC_SEED },
  );
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
    constructionMessage(() => new RooflineV2LatencyModel(llama, H100, 0)),
    "latency model: roofline requires TP > 0, got 0",
  );
});

test("validation: every problem, joined with '; ', in order", () => {
  const badArch: ArchConfig = {
    ...mixtral,
    numHeads: 0,
    activationBytes: 0,
    expertsPerTok: 9,
    moeIntermediateSize: -1,
    sharedExpertSize: -2,
    weightBytes: NaN,
  };
  const badHw: HardwareCalib = {
    ...H100,
    bwPeakTBs: 0,
    mfuDecode: NaN,
    memoryGiB: -1,
    tFlopsFP8: Infinity,
    bwEffConstant: 0,
  };
  assert.equal(
    constructionMessage(() => new RooflineV2LatencyModel(badArch, badHw, 1)),
    "latency model: invalid roofline config: " +
      "ModelConfig.NumHeads must be > 0, got 0; " +
      "ModelConfig.BytesPerParam must be a valid positive number, got 0; " +
      "HardwareCalib.BwPeakTBs must be a valid positive number, got 0; " +
      "HardwareCalib.MfuDecode must be a valid positive number, got NaN; " +
      "MoE: NumExpertsPerTok (9) cannot exceed NumLocalExperts (8); " +
      "MoE: MoEExpertFFNDim must be >= 0, got -1; " +
      "MoE: SharedExpertFFNDim must be >= 0, got -2; " +
      "HardwareCalib.MemoryGiB must be > 0 and finite when set, got -1; " +
      "HardwareCalib.TFlopsFP8 must be > 0 and finite when set, got +Inf; " +
      "ModelConfig.WeightBytesPerParam must be positive when set, got NaN",
  );
});

test("validation: MoE top-k consistency; unset optional fields and BwEffConstant are not checked", () => {
  assert.deepEqual(rooflineV2ConfigProblems({ ...mixtral, expertsPerTok: 0 }, H100), [
    "MoE: NumLocalExperts=8 but active experts per token (NumExpertsPerTok) must be > 0",
  ]);
  assert.deepEqual(rooflineV2ConfigProblems({ ...llama, expertsPerTok: 2 }, H100), [
    "MoE: NumExpertsPerTok=2 but NumLocalExperts=0 (inconsistent)",
  ]);
  assert.deepEqual(rooflineV2ConfigProblems(llama, { ...H100, memoryGiB: 0, tFlopsFP8: 0, bwEffConstant: 0 }), []);
  assert.deepEqual(rooflineV2ConfigProblems(scout, H100), []);
});
