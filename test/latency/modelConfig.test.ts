import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  bytesPerParamForDtype,
  isUsableHFConfig,
  localModelDirName,
  modelConfigWarnings,
  parseModelConfig,
} from "../../src/latency/modelConfig.js";
import { DATA_DIR } from "./helpers.js";

const bundled = (name: string): string => readFileSync(join(DATA_DIR, "model_configs", name, "config.json"), "utf8");

test("parses the bundled llama-3.1-8b-instruct config", () => {
  const c = parseModelConfig(bundled("llama-3.1-8b-instruct"));
  assert.deepEqual(c, {
    numLayers: 32,
    hiddenSize: 4096,
    numHeads: 32,
    numKVHeads: 8,
    intermediateSize: 14336,
    bytesPerParam: 2,
    vocabSize: 128256,
    dtype: "bfloat16",
    mixtureOfExperts: false,
  });
});

test("text_config is merged over the top level (inner values win)", () => {
  const c = parseModelConfig(
    JSON.stringify({
      hidden_size: 1,
      vocab_size: 99,
      torch_dtype: "float32",
      text_config: { hidden_size: 4096, num_hidden_layers: 48, num_attention_heads: 40, torch_dtype: "bfloat16" },
    }),
  );
  assert.equal(c.hiddenSize, 4096);
  assert.equal(c.numLayers, 48);
  assert.equal(c.numHeads, 40);
  assert.equal(c.vocabSize, 99);
  assert.equal(c.bytesPerParam, 2);
  // A non-object text_config is ignored.
  for (const tc of [[{ hidden_size: 5 }], null, "x", 3]) {
    assert.equal(parseModelConfig(JSON.stringify({ hidden_size: 7, text_config: tc })).hiddenSize, 7);
  }
  // The bundled multimodal config (keys only inside text_config).
  const scout = parseModelConfig(bundled("llama-4-scout-17b-16e-instruct-fp8-dynamic"));
  assert.equal(scout.numLayers, 48);
  assert.equal(scout.hiddenSize, 5120);
  assert.equal(scout.numKVHeads, 8);
});

test("H_kv: first non-zero of num_key_value_heads, num_kv_heads, multi_query_group_num; else H", () => {
  const kv = (extra: object): number =>
    parseModelConfig(JSON.stringify({ num_attention_heads: 32, ...extra })).numKVHeads;
  assert.equal(kv({ num_key_value_heads: 8, num_kv_heads: 4 }), 8);
  assert.equal(kv({ num_key_value_heads: 0, num_kv_heads: 4 }), 4);
  assert.equal(kv({ num_key_value_heads: "8", num_kv_heads: 0, multi_query_group_num: 2 }), 2);
  assert.equal(kv({ multi_query_group_num: 2 }), 2);
  assert.equal(kv({}), 32);
  assert.equal(kv({ num_key_value_heads: null }), 32);
});

test("d_ff: first non-zero of intermediate_size, ffn_hidden_size (0 if none)", () => {
  const ff = (extra: object): number => parseModelConfig(JSON.stringify(extra)).intermediateSize;
  assert.equal(ff({ intermediate_size: 11008, ffn_hidden_size: 5 }), 11008);
  assert.equal(ff({ intermediate_size: 0, ffn_hidden_size: 13696 }), 13696);
  assert.equal(ff({ ffn_hidden_size: 13696 }), 13696);
  assert.equal(ff({}), 0);
});

test("integers only from JSON numbers, truncated toward zero; anything else is 0", () => {
  const c = parseModelConfig(
    JSON.stringify({
      num_hidden_layers: "32",
      hidden_size: 4096.9,
      num_attention_heads: true,
      intermediate_size: -3.7,
      vocab_size: [1],
      num_key_value_heads: { n: 1 },
    }),
  );
  assert.equal(c.numLayers, 0);
  assert.equal(c.hiddenSize, 4096);
  assert.equal(c.numHeads, 0);
  assert.equal(c.intermediateSize, -3);
  assert.equal(c.vocabSize, 0);
  assert.equal(c.numKVHeads, 0); // falls back to H, which is 0
  assert.ok(Object.is(parseModelConfig('{"hidden_size": -0.5}').hiddenSize, 0));
});

test("dtype table; torch_dtype if a string, else dtype if a string", () => {
  const table: Record<string, number> = {
    float32: 4,
    float16: 2,
    bfloat16: 2,
    int8: 1,
    uint8: 1,
    fp8: 1,
    int4: 1,
    nf4: 1,
    float64: 0,
    BF16: 0,
    "": 0,
    constructor: 0,
    ["__proto__"]: 0,
  };
  for (const [name, b] of Object.entries(table)) {
    assert.equal(bytesPerParamForDtype(name), b, name);
    assert.equal(parseModelConfig(JSON.stringify({ torch_dtype: name })).bytesPerParam, b, name);
  }
  assert.equal(parseModelConfig('{"dtype": "float16"}').bytesPerParam, 2);
  assert.equal(parseModelConfig('{"torch_dtype": 16, "dtype": "float32"}').bytesPerParam, 4);
  // An unknown torch_dtype string does not fall back to dtype.
  assert.equal(parseModelConfig('{"torch_dtype": "auto", "dtype": "float32"}').bytesPerParam, 0);
  assert.equal(parseModelConfig("{}").bytesPerParam, 0);
  assert.equal(parseModelConfig("{}").dtype, null);
  // The bundled GLM config uses dtype.
  assert.equal(parseModelConfig(bundled("glm-5.2-fp8")).bytesPerParam, 2);
});

test("not a JSON object → parse error", () => {
  assert.throws(() => parseModelConfig("{"), /^Error: parse HF config JSON: /);
  assert.throws(
    () => parseModelConfig("[1]"),
    /parse HF config JSON: expected a JSON object at the top level, got an array/,
  );
  assert.throws(() => parseModelConfig("null"), /got null/);
});

test("keys such as __proto__ are plain data", () => {
  const c = parseModelConfig('{"__proto__": {"hidden_size": 5}, "num_hidden_layers": 2}');
  assert.equal(c.hiddenSize, 0);
  assert.equal(c.numLayers, 2);
});

test('MoE detected from the raw text "num_local_experts" → warning', () => {
  const mixtral = parseModelConfig(bundled("mixtral-8x7b-v0.1"));
  assert.equal(mixtral.mixtureOfExperts, true);
  const w = modelConfigWarnings(mixtral, "mistralai/mixtral-8x7b-v0.1");
  assert.equal(w.length, 1);
  assert.match(w[0]!, /mixtral-8x7b-v0\.1 is a mixture-of-experts model/);
  // Qwen3 MoE uses num_experts: not detected (the raw-text rule).
  const qwen = parseModelConfig(bundled("qwen3-30b-a3b"));
  assert.equal(qwen.mixtureOfExperts, false);
  assert.deepEqual(modelConfigWarnings(qwen, "qwen/qwen3-30b-a3b"), []);
  // Any occurrence in the text counts, even a nested one.
  assert.equal(parseModelConfig('{"extra": {"num_local_experts": 1}}').mixtureOfExperts, true);
  assert.equal(parseModelConfig('{"x": "num_local_experts"}').mixtureOfExperts, true);
  assert.equal(parseModelConfig('{"num_local_experts_x": 1}').mixtureOfExperts, false);
});

test("quantized (0 < b ≤ 1) → warning; b = 0 or > 1 → none", () => {
  const w = modelConfigWarnings(parseModelConfig('{"torch_dtype": "fp8"}'), "m/x");
  assert.equal(w.length, 1);
  assert.match(w[0]!, /fp8 \(1 byte per parameter\).*quantized/);
  assert.deepEqual(modelConfigWarnings(parseModelConfig('{"torch_dtype": "float16"}'), "m/x"), []);
  assert.deepEqual(modelConfigWarnings(parseModelConfig('{"torch_dtype": "weird"}'), "m/x"), []);
  const both = modelConfigWarnings(parseModelConfig('{"torch_dtype": "int4", "num_local_experts": 8}'), "m/x");
  assert.equal(both.length, 2);
});

test("isUsableHFConfig: JSON object with num_hidden_layers or hidden_size (top level or text_config)", () => {
  assert.equal(isUsableHFConfig('{"num_hidden_layers": 2}'), true);
  assert.equal(isUsableHFConfig('{"hidden_size": null}'), true);
  assert.equal(isUsableHFConfig('{"text_config": {"hidden_size": 5}}'), true);
  assert.equal(isUsableHFConfig('{"vocab_size": 5}'), false);
  assert.equal(isUsableHFConfig('{"text_config": [{"hidden_size": 5}]}'), false);
  assert.equal(isUsableHFConfig("<html>rate limited</html>"), false);
  assert.equal(isUsableHFConfig('[{"hidden_size": 5}]'), false);
  assert.equal(isUsableHFConfig(""), false);
  assert.equal(isUsableHFConfig(bundled("llama-4-scout-17b-16e-instruct-fp8-dynamic")), true);
});

test("localModelDirName: the part after the first '/'", () => {
  assert.equal(localModelDirName("meta-llama/llama-3.1-8b-instruct"), "llama-3.1-8b-instruct");
  assert.equal(localModelDirName("qwen3-14b"), "qwen3-14b");
  assert.equal(localModelDirName("a/b/c"), "b/c");
});
