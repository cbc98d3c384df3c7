// Physical bounds of the kernels model as a property (docs/latency.md "Physical bounds"): over any
// bundled model config the model accepts, any kernel-table GPU and any TP degree where the model
// fits, no all-prefill step beats the dense-peak FLOP/s, and no step with a decode is shorter than
// reading the weights (layers and LM head) from HBM once.

import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import fc from "fast-check";
import type { ResolvedLatency } from "../../../src/latency/backends/backend.js";
import { activeLayerParams } from "../../../src/latency/physicsBounds.js";
import type { StepRequestView } from "../../../src/latency/model.js";
import { UserError } from "../../../src/util/errors.js";
import { FC_SEED } from "../../helpers/fc.js";
import { DATA_DIR } from "../helpers.js";
import { chunk, decode, GPUS, resolveKernels } from "./helpers.js";

const CONFIGS = fs.readdirSync(path.join(DATA_DIR, "model_configs")).sort();
const TPS = [1, 2, 4, 8];

/** Resolved deployments, or null where the model does not run (does not fit, TP does not divide). */
const resolved = new Map<string, ResolvedLatency | null>();
async function deployment(model: string, gpu: string, tp: number): Promise<ResolvedLatency | null> {
  const key = `${model} ${gpu} ${tp}`;
  if (!resolved.has(key)) {
    try {
      resolved.set(key, (await resolveKernels(model, gpu, tp)).r);
    } catch (e) {
      if (!(e instanceof UserError)) throw e;
      resolved.set(key, null);
    }
  }
  return resolved.get(key)!;
}

const target = fc.record({
  model: fc.constantFrom(...CONFIGS),
  gpu: fc.constantFrom(...GPUS),
  tp: fc.constantFrom(...TPS),
});

/** Prefill chunks: fresh prompts or continuations after a cached prefix. */
const chunks = fc.array(
  fc.record({
    cached: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 8192 })),
    n: fc.integer({ min: 1, max: 4096 }),
  }),
  { minLength: 1, maxLength: 16 },
);
const decodeBatch = fc.array(fc.integer({ min: 1, max: 16384 }), { minLength: 1, maxLength: 256 });

const RUNS = 60;

test("bounds: activeLayerParams of Llama-3.1-8B is the hand count of its 32 layers", async () => {
  const r = (await resolveKernels("llama-3.1-8b-instruct", "H100", 1)).r;
  // 32 · (QKV 4096·6144 + output 4096·4096 + MLP 3·4096·14336)
  assert.equal(activeLayerParams(r.bounds!.arch), 32 * (4096 * 6144 + 4096 * 4096 + 3 * 4096 * 14336));
});

test("bounds (property): all-prefill steps stay under peak FLOP/s × TP / (2 × active parameters)", async () => {
  let checked = 0;
  await fc.assert(
    fc.asyncProperty(target, chunks, async ({ model, gpu, tp }, cs) => {
      const r = await deployment(model, gpu, tp);
      if (r === null) return;
      checked++;
      const b = r.bounds!;
      const batch: StepRequestView[] = cs.map((c) => chunk(c.cached, c.n));
      const tokens = cs.reduce((s, c) => s + c.n, 0);
      const us = r.build().stepTime(batch, batch.length);
      const rate = (tokens * 1e6) / us;
      const bound = (b.peaks.flops * b.gpus) / (2 * activeLayerParams(b.arch));
      assert.ok(
        rate <= bound,
        `${model} ${gpu} TP${tp}: ${tokens} tokens in ${us} µs = ${rate.toFixed(0)} tokens/s > ${bound.toFixed(0)}`,
      );
    }),
    { seed: FC_SEED, numRuns: RUNS },
  );
  assert.ok(checked >= RUNS / 3, `only ${checked} of ${RUNS} draws ran a deployment`);
});

test("bounds (property): a step with a decode reads the weights once: ≥ weight bytes / (HBM bandwidth × TP)", async () => {
  let checked = 0;
  await fc.assert(
    fc.asyncProperty(
      target,
      decodeBatch,
      fc.array(fc.integer({ min: 1, max: 2048 }), { maxLength: 4 }),
      async ({ model, gpu, tp }, ctxs, prefills) => {
        const r = await deployment(model, gpu, tp);
        if (r === null) return;
        checked++;
        const b = r.bounds!;
        const batch = [...ctxs.map(decode), ...prefills.map((n) => chunk(0, n))];
        const us = r.build().stepTime(batch, batch.length);
        const weights = (activeLayerParams(b.arch) + b.arch.hiddenSize * b.arch.vocabSize) * b.arch.weightBytes;
        const boundUs = (weights / (b.peaks.bandwidth * b.gpus)) * 1e6;
        assert.ok(
          us >= boundUs,
          `${model} ${gpu} TP${tp}: ${ctxs.length} decodes + ${prefills.length} chunks in ${us} µs < ${boundUs.toFixed(0)} µs`,
        );
      },
    ),
    { seed: FC_SEED, numRuns: RUNS },
  );
  assert.ok(checked >= RUNS / 3, `only ${checked} of ${RUNS} draws ran a deployment`);
});
