import { test } from "node:test";
import assert from "node:assert/strict";
import type { ArchConfig } from "../../src/latency/archConfig.js";
import { calculateKvBlocks, extractKvCapacityParams } from "../../src/latency/kvCapacity.js";
import { applyRopeScaling, capMaxModelLenToKv, deriveMaxModelLen } from "../../src/latency/maxModelLen.js";
import {
  DEEPSEEK_V2_LITE,
  LLAMA_70B,
  LLAMA_8B,
  MIXTRAL,
  SCOUT_FP8,
  bundledArch,
  currentHardware,
} from "./archHelpers.js";

const FACTOR_NOT_APPLIED =
  "--latency-model: rope_scaling.factor present but not applied (excluded type, invalid value, or overflow); " +
  "using max_position_embeddings as-is";

test("Llama-3.1-8B: no rope_scaling, 131072; fits 26312 blocks; capped to 65536 with 4096 blocks", () => {
  const r = deriveMaxModelLen(bundledArch(LLAMA_8B));
  assert.equal(r.value, 131072);
  assert.deepEqual(r.warnings, []);
  assert.deepEqual(r.infos, ["--latency-model: auto-derived max-model-len=131072 from max_position_embeddings"]);
  assert.deepEqual(capMaxModelLenToKv(131072, 26312, 16), { value: 131072, warning: null });
  assert.deepEqual(capMaxModelLenToKv(131072, 4096, 16), {
    value: 65536,
    warning:
      "--latency-model: max-model-len 131072 exceeds KV capacity (4096 blocks × 16 tokens); capping to 65536 tokens",
  });
});

test("Llama-3.1-70B: llama3 scaling is excluded, 131072, and the unused factor is warned about", () => {
  const r = deriveMaxModelLen(bundledArch(LLAMA_70B));
  assert.equal(r.value, 131072);
  assert.deepEqual(r.warnings, [FACTOR_NOT_APPLIED]);
});

test("DeepSeek-V2-Lite: yarn, factor 40 over original 4096 → 163840", () => {
  const r = deriveMaxModelLen(bundledArch(DEEPSEEK_V2_LITE));
  assert.equal(r.value, 163840);
  assert.deepEqual(r.warnings, []);
  assert.deepEqual(r.infos, [
    "--latency-model: applying yarn rope_scaling factor 40.0: 163840 → 163840",
    "--latency-model: auto-derived max-model-len=163840 from max_position_embeddings",
  ]);
});

test("Scout FP8 at TP 2: llama3 excluded, 10485760, capped by its 27345 blocks to 437520", () => {
  const arch = bundledArch(SCOUT_FP8, "redhatai/llama-4-scout-17b-16e-instruct-fp8-dynamic");
  const r = deriveMaxModelLen(arch);
  assert.equal(r.value, 10485760);
  const p = extractKvCapacityParams(arch);
  assert.ok(p.ok);
  const budget = {
    memoryGiB: currentHardware("H100").memoryGiB,
    tp: 2,
    dp: 1,
    gpuMemoryUtilization: 0.9,
    blockSize: 16,
  };
  const blocks = calculateKvBlocks(arch, p.params, budget, "scout");
  assert.equal(blocks, 27345);
  const capped = capMaxModelLenToKv(r.value, blocks, 16);
  assert.equal(capped.value, 437520);
  assert.equal(
    capped.warning,
    "--latency-model: max-model-len 10485760 exceeds KV capacity (27345 blocks × 16 tokens); capping to 437520 tokens",
  );
});

test("Mixtral: 32768", () => {
  assert.equal(deriveMaxModelLen(bundledArch(MIXTRAL)).value, 32768);
});

test("rope scaling rules", () => {
  // Types that apply the factor, including unknown ones; `rope_type` when `type` is empty.
  for (const type of ["linear", "dynamic", "default", "mrope", "something-new"]) {
    assert.deepEqual(applyRopeScaling(4096, "llama", { type, factor: 4 }), { value: 16384, applied: true }, type);
  }
  assert.deepEqual(applyRopeScaling(4096, "llama", { type: "", rope_type: "linear", factor: 2.5 }), {
    value: 10240,
    applied: true,
  });
  assert.deepEqual(applyRopeScaling(4096, "llama", { factor: 2 }), { value: 8192, applied: true });
  // Excluded types, whichever key names them.
  for (const type of ["su", "longrope", "llama3"]) {
    assert.deepEqual(applyRopeScaling(4096, "llama", { type, factor: 4 }), { value: 4096, applied: false }, type);
    assert.deepEqual(
      applyRopeScaling(4096, "llama", { rope_type: type, factor: 4 }),
      { value: 4096, applied: false },
      type,
    );
  }
  // gemma3 (any model type containing it) never scales.
  assert.deepEqual(applyRopeScaling(131072, "gemma3_text", { type: "linear", factor: 8 }), {
    value: 131072,
    applied: false,
  });
  // Factor missing, not a number, ≤ 1.
  for (const factor of [undefined, "4", 1, 0.5, -2, null]) {
    assert.deepEqual(
      applyRopeScaling(4096, "llama", { type: "linear", factor }),
      { value: 4096, applied: false },
      String(factor),
    );
  }
  assert.deepEqual(applyRopeScaling(4096, "llama", { type: "linear", factor: Infinity }), {
    value: 4096,
    applied: false,
  });
  // Yarn scales original_max_position_embeddings when > 0, else max_position_embeddings.
  const yarn = { type: "yarn", factor: 4, original_max_position_embeddings: 32768 };
  assert.deepEqual(applyRopeScaling(40960, "qwen3", yarn), { value: 131072, applied: true });
  assert.deepEqual(applyRopeScaling(40960, "qwen3", { ...yarn, original_max_position_embeddings: 0 }), {
    value: 163840,
    applied: true,
  });
  // Only yarn uses the original length.
  assert.deepEqual(applyRopeScaling(40960, "qwen3", { ...yarn, type: "linear" }), { value: 163840, applied: true });
  // Truncation and overflow.
  assert.deepEqual(applyRopeScaling(1000, "llama", { type: "linear", factor: 1.0015 }), { value: 1001, applied: true });
  assert.deepEqual(applyRopeScaling(2 ** 62, "llama", { type: "linear", factor: 2 }), {
    value: 2 ** 62,
    applied: false,
  });
  // Absent, null or non-object rope_scaling.
  assert.deepEqual(applyRopeScaling(4096, "llama", undefined), { value: 4096, applied: false });
  assert.deepEqual(applyRopeScaling(4096, "llama", null), { value: 4096, applied: false });
  assert.deepEqual(applyRopeScaling(4096, "llama", [4]), { value: 4096, applied: false });
});

function withRope(ropeScaling: unknown, extra: Partial<ArchConfig> = {}): ArchConfig {
  return { ...bundledArch(LLAMA_8B), maxPositionEmbeddings: 8192, ropeScaling, ...extra };
}

test("derivation messages: gemma3, non-object, factor not applied, nothing derived", () => {
  const gemma = deriveMaxModelLen(withRope({ type: "linear", factor: 8 }, { modelType: "gemma3" }));
  assert.equal(gemma.value, 8192);
  assert.deepEqual(gemma.warnings, []);
  assert.equal(
    gemma.infos[0],
    "--latency-model: skipping rope_scaling for gemma3 (max_position_embeddings is pre-scaled)",
  );
  const str = deriveMaxModelLen(withRope("linear"));
  assert.equal(str.value, 8192);
  assert.deepEqual(str.warnings, [
    "--latency-model: rope_scaling present but not a JSON object (type string); ignoring",
  ]);
  assert.deepEqual(deriveMaxModelLen(withRope(2)).warnings, [
    "--latency-model: rope_scaling present but not a JSON object (type float64); ignoring",
  ]);
  assert.deepEqual(deriveMaxModelLen(withRope({ type: "linear", factor: 0.5 })).warnings, [FACTOR_NOT_APPLIED]);
  assert.deepEqual(deriveMaxModelLen(withRope({ type: "linear", factor: null })).warnings, [FACTOR_NOT_APPLIED]);
  // No factor key, or null rope_scaling: no warning.
  assert.deepEqual(deriveMaxModelLen(withRope({ type: "linear" })).warnings, []);
  assert.deepEqual(deriveMaxModelLen(withRope(null)).warnings, []);
  const linear = deriveMaxModelLen(withRope({ type: "linear", factor: 2 }));
  assert.equal(linear.value, 16384);
  assert.equal(linear.infos[0], "--latency-model: applying linear rope_scaling factor 2.0: 8192 → 16384");
  // Values past 2^53 print with all their digits.
  assert.equal(
    deriveMaxModelLen(withRope({ type: "linear", factor: 2 }, { maxPositionEmbeddings: 2 ** 61 })).infos[0],
    "--latency-model: applying linear rope_scaling factor 2.0: 2305843009213693952 → 4611686018427387904",
  );
  // max_position_embeddings ≤ 0: nothing derived (0 = unlimited), nothing logged.
  assert.deepEqual(deriveMaxModelLen(withRope({ type: "linear", factor: 2 }, { maxPositionEmbeddings: 0 })), {
    value: 0,
    infos: [],
    warnings: [],
  });
});

test("KV cap: exact fit, one token over, unlimited and large values", () => {
  assert.deepEqual(capMaxModelLenToKv(65536, 4096, 16), { value: 65536, warning: null });
  assert.equal(capMaxModelLenToKv(65537, 4096, 16).value, 65536);
  assert.deepEqual(capMaxModelLenToKv(0, 1, 16), { value: 0, warning: null });
  const huge = capMaxModelLenToKv(2 ** 62, 1000000, 16);
  assert.equal(huge.value, 16000000);
  assert.equal(
    huge.warning,
    "--latency-model: max-model-len 4611686018427387904 exceeds KV capacity (1000000 blocks × 16 tokens); capping to 16000000 tokens",
  );
});
