import { test } from "node:test";
import assert from "node:assert/strict";
import { UserError } from "../../src/util/errors.js";
import type { ArchConfig } from "../../src/latency/archConfig.js";
import {
  KvCapacityError,
  autoKvBlocks,
  calculateKvBlocks,
  extractKvCapacityParams,
  kvBytesPerToken,
  modelParamCount,
  modelWeightBytes,
  type KvBudget,
  type KvCapacityParams,
} from "../../src/latency/kvCapacity.js";
import {
  DEEPSEEK_V2_LITE,
  LLAMA_70B,
  LLAMA_8B,
  MIXTRAL,
  QWEN25_7B,
  QWEN3_MOE,
  SCOUT_FP8,
  bundledArch,
  currentHardware,
} from "./archHelpers.js";

function params(arch: ArchConfig): KvCapacityParams {
  const r = extractKvCapacityParams(arch);
  assert.ok(r.ok, "capacity parameters should be extractable");
  return r.params;
}

function budget(gpu: string, tp: number, extra: Partial<KvBudget> = {}): KvBudget {
  return { memoryGiB: currentHardware(gpu).memoryGiB, tp, dp: 1, gpuMemoryUtilization: 0.9, blockSize: 16, ...extra };
}

function blocks(folder: string, gpu: string, tp: number, extra: Partial<KvBudget> = {}, model = folder): number {
  const arch = bundledArch(folder, model);
  return calculateKvBlocks(arch, params(arch), budget(gpu, tp, extra), model);
}

test("worked example: Llama-3.1-8B, H100, TP 1, u 0.9 → 26312 blocks", () => {
  const arch = bundledArch(LLAMA_8B);
  const p = params(arch);
  assert.equal(modelParamCount(arch, p), 8030261248n);
  assert.equal(modelWeightBytes(arch, p), 16060522496);
  assert.equal(kvBytesPerToken(arch, 1), 131072);
  assert.equal(calculateKvBlocks(arch, p, budget("H100", 1), LLAMA_8B), 26312);
});

test("every row of the capacity table (block size 16)", () => {
  assert.equal(blocks(LLAMA_8B, "H100", 1), 26312);
  assert.equal(blocks(LLAMA_8B, "H100", 1, { gpuMemoryUtilization: 0.5 }), 9928);
  assert.equal(blocks(LLAMA_8B, "H100", 2), 125278);
  assert.equal(blocks(LLAMA_8B, "A100-80", 1), 26312);
  assert.equal(blocks(LLAMA_8B, "L40S", 1), 11567);
  assert.equal(blocks(LLAMA_70B, "H100", 4), 121801);
  assert.equal(blocks(MIXTRAL, "H100", 2), 48956);
  assert.equal(blocks(MIXTRAL, "H100", 2, { dp: 2 }), 97912);
  assert.equal(blocks(QWEN25_7B, "H100", 1), 61048);
  assert.equal(blocks(QWEN3_MOE, "H100", 1), 5276);
  assert.equal(blocks(SCOUT_FP8, "H100", 2, {}, "redhatai/llama-4-scout-17b-16e-instruct-fp8-dynamic"), 27345);
  assert.equal(blocks(DEEPSEEK_V2_LITE, "H100", 1), 74312);
});

test("table details: Mixtral parameter count, head_dim, MLA per-token bytes, FP8 weight bytes", () => {
  const mixtral = bundledArch(MIXTRAL);
  assert.equal(modelParamCount(mixtral, params(mixtral)), 46702792704n);
  // Qwen3-30B-A3B: head_dim 128 (not 2048/32 = 64): 48·2·128·4·2 bytes per token.
  assert.equal(kvBytesPerToken(bundledArch(QWEN3_MOE), 1), 98304);
  // DeepSeek-V2-Lite (MLA): 27·(512 + 64)·2, the same on every TP rank.
  const ds = bundledArch(DEEPSEEK_V2_LITE);
  assert.equal(kvBytesPerToken(ds, 1), 31104);
  assert.equal(kvBytesPerToken(ds, 4), 31104);
  // Scout FP8: compressed-tensors 8-bit weights, bf16 activations (KV at 2 bytes).
  const scout = bundledArch(SCOUT_FP8, "redhatai/llama-4-scout-17b-16e-instruct-fp8-dynamic");
  const p = params(scout);
  assert.equal(modelWeightBytes(scout, p), Number(modelParamCount(scout, p)));
  assert.equal(kvBytesPerToken(scout, 2), (48 * 2 * 128 * 8 * 2) / 2);
});

test("Mixtral at TP 1 does not fit: the error names the model and TP, then the reference text", () => {
  const arch = bundledArch(MIXTRAL);
  const expected =
    "mistralai/mixtral-8x7b-v0.1 at TP 1: CalculateKVBlocks: model overhead (95.14 GiB = 86.99 weights + 8.00 activation + " +
    "0.15 non-torch + 0.00 lora-adapter-reservation) exceeds available GPU memory (72.00 GiB = 80.0 GiB × 90% util × " +
    "1 GPUs). Minimum GPUs required per instance: 2";
  assert.throws(
    () => calculateKvBlocks(arch, params(arch), budget("H100", 1), "mistralai/mixtral-8x7b-v0.1"),
    (e: unknown) => e instanceof KvCapacityError && e instanceof UserError && e.message === expected,
  );
  // Through the automatic step the message gains the fatal prefix.
  assert.throws(
    () => autoKvBlocks(arch, budget("H100", 1), "mistralai/mixtral-8x7b-v0.1", 1000000),
    (e: unknown) =>
      e instanceof UserError && e.message === `--latency-model: KV capacity auto-calculation failed: ${expected}`,
  );
});

test("per-GPU capacity below the non-torch overhead: cannot fit at any TP", () => {
  const arch = bundledArch(MIXTRAL);
  assert.throws(
    () => calculateKvBlocks(arch, params(arch), { ...budget("H100", 1), memoryGiB: 0.5 }, "m"),
    (e: unknown) =>
      e instanceof KvCapacityError &&
      e.message ===
        "m at TP 1: CalculateKVBlocks: insufficient per-GPU capacity (0.45 GiB available - 0.60 GiB non-torch overhead = " +
          "-0.15 GiB). Cannot fit model even with increased TP",
  );
});

test("MoE detection without a total expert count: extraction fails and the flag value is kept", () => {
  const llama = bundledArch(LLAMA_8B);
  const noCount: ArchConfig = { ...llama, expertsPerTok: 2 };
  const r = extractKvCapacityParams(noCount);
  assert.deepEqual(r, {
    ok: false,
    reason:
      "model appears to be MoE (num_experts_per_tok=2) but num_local_experts is missing; cannot estimate weight size accurately. " +
      "Set --total-kv-blocks explicitly",
  });
  const shared = extractKvCapacityParams({ ...noCount, nSharedExperts: 1 });
  assert.ok(!shared.ok && shared.reason.startsWith("model appears to be MoE (n_shared_experts=1)"));
  const auto = autoKvBlocks(noCount, budget("H100", 1), LLAMA_8B, 1000000);
  assert.equal(auto.blocks, 1000000);
  assert.equal(auto.auto, false);
  assert.deepEqual(auto.messages, [
    {
      level: "warn",
      text:
        "--latency-model: could not extract KV capacity params: model appears to be MoE (num_experts_per_tok=2) but " +
        "num_local_experts is missing; cannot estimate weight size accurately. Set --total-kv-blocks explicitly. " +
        "Using total-kv-blocks=1000000. Set --total-kv-blocks explicitly to override",
    },
  ]);
});

test("automatic step: no MemoryGiB keeps the flag value; success logs the count", () => {
  const arch = bundledArch(LLAMA_8B);
  const none = autoKvBlocks(arch, { ...budget("H100", 1), memoryGiB: 0 }, LLAMA_8B, 777);
  assert.equal(none.blocks, 777);
  assert.equal(none.messages[0]?.level, "warn");
  assert.match(
    none.messages[0]?.text ?? "",
    /^--latency-model: GPU memory capacity not available in hardware config; using current total-kv-blocks=777/,
  );
  const ok = autoKvBlocks(arch, budget("H100", 1), LLAMA_8B, 1000000);
  assert.equal(ok.blocks, 26312);
  assert.equal(ok.auto, true);
  assert.deepEqual(
    ok.messages.map((m) => m.text),
    [
      "--gpu-memory-utilization: 0.90 used for KV block auto-calculation",
      "--latency-model: auto-calculated total-kv-blocks=26312 (GPU=80 GiB, TP=1, block_size=16, MoE=false)",
    ],
  );
  const noAct = autoKvBlocks({ ...arch, hiddenAct: "" }, budget("H100", 1), LLAMA_8B, 1);
  assert.equal(noAct.blocks, 26312);
  assert.equal(
    noAct.messages[0]?.text,
    "--latency-model: hidden_act not set in config.json; assuming SwiGLU (3-matrix MLP) for weight estimation",
  );
});

test("activation check: only SwiGLU-family activations", () => {
  const arch = bundledArch(LLAMA_8B);
  for (const act of ["silu", "swiglu", "geglu", "situ", ""]) {
    assert.equal(
      calculateKvBlocks({ ...arch, hiddenAct: act }, { ...params(arch), hiddenAct: act }, budget("H100", 1), "m"),
      26312,
    );
  }
  assert.throws(
    () => calculateKvBlocks(arch, { ...params(arch), hiddenAct: "gelu" }, budget("H100", 1), "m"),
    (e: unknown) =>
      e instanceof KvCapacityError &&
      e.message ===
        'CalculateKVBlocks: unsupported activation "gelu"; only SwiGLU-family activations (silu, swiglu, geglu, situ) are supported',
  );
});

test("input errors", () => {
  const arch = bundledArch(LLAMA_8B);
  const p = params(arch);
  const msg = (a: ArchConfig, b: KvBudget): string => {
    try {
      calculateKvBlocks(a, p, b, "m");
    } catch (e) {
      assert.ok(e instanceof KvCapacityError);
      return e.message;
    }
    assert.fail("expected a KvCapacityError");
  };
  const b = budget("H100", 1);
  assert.equal(
    msg(arch, { ...b, gpuMemoryUtilization: 1.5 }),
    "CalculateKVBlocks: gpuMemoryUtilization must be in (0, 1.0], got 1.5",
  );
  assert.equal(msg(arch, { ...b, blockSize: 0 }), "CalculateKVBlocks: block size must be > 0, got 0");
  assert.equal(msg(arch, { ...b, dp: 0 }), "CalculateKVBlocks: dp must be >= 1, got 0");
  assert.equal(msg({ ...arch, intermediateSize: 0 }, b), "CalculateKVBlocks: intermediate_dim must be > 0, got 0");
  assert.equal(msg({ ...arch, vocabSize: 0 }, b), "CalculateKVBlocks: vocab_size must be > 0, got 0");
  assert.equal(
    msg(arch, { ...b, memoryGiB: -1 }),
    "CalculateKVBlocks: GPU memory (MemoryGiB) must be a valid positive number, got -1",
  );
  assert.equal(
    msg({ ...arch, hiddenSize: 4097 }, b),
    "CalculateKVBlocks: KVBytesPerToken: hidden_dim (4097) must be evenly divisible by num_attention_heads (32)",
  );
  assert.equal(
    msg(arch, { ...b, tp: 3 }),
    "CalculateKVBlocks: KVBytesPerToken: num_kv_heads (8) must be evenly divisible by TP (3)",
  );
  assert.equal(
    msg(arch, { ...b, blockSize: 1000000 }),
    "CalculateKVBlocks: computed 0 blocks (allocatable=51.39 GiB, per_block=131072000000 bytes)",
  );
});

test("H_kv below TP: the division still happens (optimistic); explicit head_dim needs no divisibility", () => {
  const arch = bundledArch(LLAMA_8B);
  // 8 KV heads at TP 16: 131072 / 16 per token.
  assert.equal(kvBytesPerToken(arch, 16), 8192);
  assert.equal(kvBytesPerToken({ ...arch, hiddenSize: 4097, headDim: 128 }, 1), 131072);
});

test("dp multiplies only MoE block counts", () => {
  assert.equal(blocks(LLAMA_8B, "H100", 1, { dp: 4 }), 26312);
  assert.equal(blocks(MIXTRAL, "H100", 2, { dp: 3 }), 3 * 48956);
});

test("parameter count: tied embeddings drop the LM head; first_k_dense_replace layers are dense", () => {
  const arch = bundledArch(LLAMA_8B);
  const p = params(arch);
  assert.equal(modelParamCount(arch, { ...p, tieWordEmbeddings: true }), 8030261248n - 128256n * 4096n);
  const ds = bundledArch(DEEPSEEK_V2_LITE);
  const dsp = params(ds);
  const d = 2048n;
  const moeLayer = 3n * d * 1408n * 64n + 3n * d * (2n * 1408n) + 64n * d;
  const denseLayer = 3n * d * 10944n;
  assert.equal(modelParamCount(ds, dsp) - modelParamCount({ ...ds, firstKDense: 0 }, dsp), denseLayer - moeLayer);
  // The dense prefix is clamped to L.
  assert.equal(
    modelParamCount({ ...ds, firstKDense: 1000 }, dsp) - modelParamCount({ ...ds, firstKDense: 27 }, dsp),
    0n,
  );
});

test("LoRA reservation is part of the overhead", () => {
  const arch = bundledArch(LLAMA_8B);
  const withLora = calculateKvBlocks(
    arch,
    params(arch),
    { ...budget("H100", 1), loraReservedBytes: 2097152 * 10 },
    "m",
  );
  assert.equal(withLora, 26312 - 10);
});
