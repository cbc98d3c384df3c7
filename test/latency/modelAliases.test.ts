import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { findConfigFolder, normalizeModelName } from "../../src/latency/modelAliases.js";
import { localModelDirName } from "../../src/latency/modelConfig.js";
import { modelCatalog, renderModelCatalog } from "../../src/latency/backends/modelCatalog.js";
import { DATA_DIR } from "./helpers.js";

const CONFIGS = join(DATA_DIR, "model_configs");
const find = (model: string) => findConfigFolder(CONFIGS, model, localModelDirName(model));

test("variant words are dropped from model names", () => {
  assert.equal(normalizeModelName("mistralai/Mixtral-8x7B-Instruct-v0.1"), "mixtral-8x7b-v0.1");
  assert.equal(normalizeModelName("RedHatAI/Qwen2.5-7B-Instruct-quantized.w4a16"), "qwen2.5-7b");
  assert.equal(normalizeModelName("redhatai/phi-4-fp8-dynamic"), "phi-4");
  assert.equal(normalizeModelName("qwen/qwen3-30b-a3b-instruct-2507", true), "qwen3-30b-a3b");
  assert.equal(normalizeModelName("qwen/qwen3-30b-a3b-instruct-2507"), "qwen3-30b-a3b-2507");
});

test("bundled configs are found across instruct, base, quantized and dated spellings", () => {
  assert.deepEqual(find("meta-llama/llama-3.1-8b-instruct"), { folder: "llama-3.1-8b-instruct", exact: true });
  assert.deepEqual(find("mistralai/mixtral-8x7b-instruct-v0.1"), { folder: "mixtral-8x7b-v0.1", exact: false });
  assert.deepEqual(find("redhatai/qwen2.5-7b-instruct-fp8-dynamic"), { folder: "qwen2.5-7b-instruct", exact: false });
  assert.deepEqual(find("qwen/qwen3-30b-a3b-instruct-2507"), { folder: "qwen3-30b-a3b", exact: false });
  assert.deepEqual(find("meta-llama/llama-3.3-70b-instruct"), { folder: "llama-3.1-70b-instruct", exact: false });
  assert.deepEqual(find("nvidia/llama-3.1-nemotron-70b-instruct-hf"), {
    folder: "llama-3.1-70b-instruct",
    exact: false,
  });
});

test("different models are not matched", () => {
  assert.equal(find("qwen/qwen2.5-3b-instruct"), null);
  assert.equal(find("microsoft/phi-4"), null);
  assert.equal(find("meta-llama/llama-3.1-405b-instruct"), null);
});

test("the model catalog lists every model of the bundled data with its config and coefficients", () => {
  const cat = modelCatalog();
  const by = new Map(cat.map((e) => [e.model, e]));
  const llama = by.get("meta-llama/llama-3.1-8b-instruct")!;
  assert.equal(llama.defaultDeployment, "H100 TP1");
  assert.equal(llama.config, "llama-3.1-8b-instruct");
  assert.ok(
    llama.blackbox.some((b) => b.startsWith("H100 TP1,2,4")),
    llama.blackbox.join("; "),
  );
  const mixtral = by.get("mistralai/mixtral-8x7b-instruct-v0.1")!;
  assert.equal(mixtral.defaultDeployment, "H100 TP2");
  assert.equal(mixtral.configIsAlias, true);
  assert.equal(by.get("microsoft/phi-4")!.config, "");
  const text = renderModelCatalog(cat);
  assert.match(
    text,
    /^MODEL +DEFAULT \(kernels, trained-physics, roofline\) +CONFIG +BLACKBOX DEFAULT +BLACKBOX COEFFICIENTS\n/,
  );
  // Blackbox keeps the 2025 defaults.yaml deployment (Llama-3.1-8B: TP 2), the other models today's (TP 1).
  assert.equal(llama.blackboxDefault, "H100 TP2 (v0.8.4)");
  assert.equal(by.get("qwen/qwen3-14b")!.blackboxDefault, "");
  assert.match(text, /microsoft\/phi-4 +H100 TP1 +- \(needs --model-config-folder\)/);
});
