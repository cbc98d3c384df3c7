// Properties of whole runs on the current analytical backends, over the models with a bundled
// (or aliased) config.json, the TP degrees they fit at, and small workloads.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { simulate } from "../../../src/sim/simulate.js";
import { loadCoefficientFile } from "../../../src/latency/coefficientFile.js";
import { findConfigFolder } from "../../../src/latency/modelAliases.js";
import { localModelDirName, type FetchLike } from "../../../src/latency/modelConfig.js";
import { parseArchConfig } from "../../../src/latency/archConfig.js";
import { loadHardwareConfig } from "../../../src/latency/hardwareConfig.js";
import { autoKvBlocks } from "../../../src/latency/kvCapacity.js";
import { validTpDegrees } from "../../../src/latency/backends/analytical.js";
import type { MetricsBlock } from "../../../src/metrics/metricsBlock.js";
import { FC_SEED } from "../../helpers/fc.js";
import { DATA_DIR } from "../helpers.js";

const CONFIGS = path.join(DATA_DIR, "model_configs");
const HARDWARE = path.join(DATA_DIR, "head", "hardware_config.json");

interface Candidate {
  model: string;
  gpu: string;
  tp: number;
}

/** Whether the model's weights fit at this TP (the automatic KV count needs at least one block). */
function fits(model: string, folder: string, exact: boolean, gpu: string, tp: number): boolean {
  const file = path.join(CONFIGS, folder, "config.json");
  const arch = parseArchConfig(fs.readFileSync(file, "utf8"), model, file, exact);
  const hw = loadHardwareConfig(HARDWARE, gpu);
  try {
    autoKvBlocks(
      arch,
      { memoryGiB: hw.memoryGiB, tp, dp: 1, gpuMemoryUtilization: 0.9, blockSize: 16 },
      model,
      1000000,
    );
    return true;
  } catch (e) {
    if (e instanceof Error && e.message.includes("Minimum GPUs required per instance")) return false;
    throw e;
  }
}

/**
 * (model, GPU, TP) for every model of the bundled `defaults` map whose config.json is bundled
 * under its own or an equivalent name, and every bundled config folder under its own name on
 * H100, at the degrees {1, 2, 4, 8} its heads split into and its weights fit at.
 */
function candidates(): Candidate[] {
  const out: Candidate[] = [];
  const defaults =
    loadCoefficientFile(path.join(DATA_DIR, "head", "trained-physics.yaml"), "bundled coefficients").defaults ?? {};
  const models: [string, string][] = Object.entries(defaults).map(([m, d]) => [m, d.GPU]);
  for (const folder of fs.readdirSync(CONFIGS)) models.push([`bundled/${folder}`, "H100"]);
  for (const [model, gpu] of models) {
    const hit = findConfigFolder(CONFIGS, model, localModelDirName(model));
    if (hit === null) continue;
    const file = path.join(CONFIGS, hit.folder, "config.json");
    const arch = parseArchConfig(fs.readFileSync(file, "utf8"), model, file, hit.exact);
    for (const tp of validTpDegrees(arch).filter((t) => [1, 2, 4, 8].includes(t))) {
      if (fits(model, hit.folder, hit.exact, gpu, tp)) out.push({ model, gpu, tp });
    }
  }
  return out;
}

const CANDIDATES = candidates();

const noFetch: FetchLike = async (url) => {
  throw new Error(`unexpected download of ${url}`);
};

test("the candidate set covers dense, MoE, quantized and aliased models", () => {
  const names = new Set(CANDIDATES.map((c) => c.model));
  for (const m of [
    "meta-llama/llama-3.1-8b-instruct",
    "meta-llama/llama-3.3-70b-instruct",
    "meta-llama/llama-4-scout-17b-16e-instruct",
    "redhatai/llama-3.3-70b-instruct-quantized.w4a16",
    "bundled/mixtral-8x7b-v0.1",
    "bundled/deepseek-v2-lite",
  ]) {
    assert.ok(names.has(m), `${m} in ${[...names].join(", ")}`);
  }
  // Filtered by construction: the bf16 Scout needs 4 GPUs of 80 GiB, Llama-3.1-70B two.
  assert.ok(!CANDIDATES.some((c) => c.model === "meta-llama/llama-4-scout-17b-16e-instruct" && c.tp < 4));
  assert.ok(!CANDIDATES.some((c) => c.model === "meta-llama/llama-3.3-70b-instruct" && c.tp === 1));
});

const runArb = fc.record({
  candidate: fc.constantFrom(...CANDIDATES),
  backend: fc.constantFrom("trained-physics", "roofline"),
  numRequests: fc.integer({ min: 20, max: 60 }),
  rate: fc.integer({ min: 1, max: 50 }),
  prompt: fc.integer({ min: 8, max: 400 }),
  output: fc.integer({ min: 1, max: 64 }),
  seed: fc.integer({ min: 1, max: 1000 }),
  maxNumSeqs: fc.constantFrom(4, 64, 256),
  maxNumBatchedTokens: fc.constantFrom(128, 512, 2048),
});

function numericFields(b: MetricsBlock): [string, number][] {
  return Object.entries(b).filter((e): e is [string, number] => typeof e[1] === "number");
}

test("runs on the current backends complete, conserve requests and report finite metrics", async () => {
  await fc.assert(
    fc.asyncProperty(runArb, async (p) => {
      const res = await simulate(
        {
          model: p.candidate.model,
          hardware: p.candidate.gpu,
          tp: p.candidate.tp,
          latencyModel: p.backend,
          seed: p.seed,
          numRequests: p.numRequests,
          rate: p.rate,
          promptTokens: p.prompt,
          promptTokensStdev: Math.max(1, Math.floor(p.prompt / 4)), // the stdev must lie in [min, max] too
          promptTokensMin: 1,
          promptTokensMax: 2 * p.prompt,
          outputTokens: p.output,
          outputTokensStdev: Math.max(1, Math.floor(p.output / 4)),
          outputTokensMin: 1,
          outputTokensMax: 2 * p.output,
          maxNumSeqs: p.maxNumSeqs,
          maxNumBatchedTokens: p.maxNumBatchedTokens,
        },
        { fetchImpl: noFetch },
      );
      const c = res.metrics.cluster;
      const label = JSON.stringify(p);
      assert.equal(res.metrics.generated, p.numRequests, label);
      assert.equal(
        c.completed_requests + c.still_queued + c.still_running + c.dropped_unservable,
        p.numRequests,
        label,
      );
      assert.equal(c.injected_requests, p.numRequests, label);
      assert.equal(c.still_queued + c.still_running, 0, `${label}: every request finishes`);
      assert.ok(res.config.kv.totalKvBlocks > 0 && res.config.engine.maxModelLen > 0, label);
      for (const b of [c, ...res.metrics.instances]) {
        for (const [k, v] of numericFields(b))
          assert.ok(!Number.isNaN(v) && Number.isFinite(v), `${label}: ${b.instance_id}.${k} = ${v}`);
      }
      const l = res.run.ledger;
      let multiToken = false;
      for (let i = 0; i < l.size; i++) if (l.isCompleted(i) && l.outputLen[i]! >= 2) multiToken = true;
      if (multiToken) assert.ok(c.itl_mean_ms > 0, `${label}: itl_mean_ms ${c.itl_mean_ms}`);
      if (c.completed_requests > 0) {
        assert.ok(c.ttft_mean_ms <= c.e2e_mean_ms, `${label}: ttft ${c.ttft_mean_ms} > e2e ${c.e2e_mean_ms}`);
        assert.ok(c.ttft_mean_ms > 0, label);
      }
    }),
    { seed: FC_SEED, numRuns: 25 },
  );
});
