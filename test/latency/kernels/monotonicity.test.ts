// More work never makes a kernels-model step faster (docs/latency.md "Interpolation and
// extrapolation"): step time is non-decreasing in a prefill chunk's tokens, in the context cached
// before it, in the decode batch size and in the decode context, for several models, GPUs and TPs.

import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import type { LatencyModel, StepRequestView } from "../../../src/latency/model.js";
import { FC_SEED } from "../../helpers/fc.js";
import { chunk, decodes, LLAMA_70B, LLAMA_8B, MIXTRAL, resolveKernels } from "./helpers.js";

interface Deployment {
  name: string;
  model: string;
  gpu: string;
  tp: number;
  vllmVersion?: string;
}

const LLAMA8_H100: Deployment = { name: "Llama-3.1-8B H100 TP1", model: LLAMA_8B, gpu: "H100", tp: 1 };
const LLAMA70_H100: Deployment = { name: "Llama-3.1-70B H100 TP4", model: LLAMA_70B, gpu: "H100", tp: 4 };
const MIXTRAL_H200: Deployment = { name: "Mixtral-8x7B H200 TP2", model: MIXTRAL, gpu: "H200", tp: 2 };
const LLAMA70_A100: Deployment = { name: "Llama-3.1-70B A100-SXM TP4", model: LLAMA_70B, gpu: "A100-SXM", tp: 4 };
const QWEN_L40S: Deployment = {
  name: "Qwen2.5-7B L40S TP2 (scaled attention shape)",
  model: "qwen/qwen2.5-7b-instruct",
  gpu: "L40S",
  tp: 2,
};
const LLAMA70_H100_TP8: Deployment = { name: "Llama-3.1-70B H100 TP8", model: LLAMA_70B, gpu: "H100", tp: 8 };
const LLAMA8_B200_NEW: Deployment = {
  name: "Llama-3.1-8B B200 TP2 vLLM 0.24",
  model: LLAMA_8B,
  gpu: "B200",
  tp: 2,
  vllmVersion: "0.24",
};
const LLAMA8_B200_OLD: Deployment = {
  name: "Llama-3.1-8B B200 TP1 vLLM 0.19",
  model: LLAMA_8B,
  gpu: "B200",
  tp: 1,
  vllmVersion: "0.19",
};
const LLAMA8_A100_TP8: Deployment = { name: "Llama-3.1-8B A100-SXM TP8", model: LLAMA_8B, gpu: "A100-SXM", tp: 8 };
const LLAMA8_RTX_NEW: Deployment = {
  name: "Llama-3.1-8B RTX-PRO-6000 TP1 vLLM 0.24",
  model: LLAMA_8B,
  gpu: "RTX-PRO-6000",
  tp: 1,
  vllmVersion: "0.24",
};
const QWEN_H100: Deployment = {
  name: "Qwen2.5-7B H100 TP1 (scaled attention shape)",
  model: "qwen/qwen2.5-7b-instruct",
  gpu: "H100",
  tp: 1,
};
const QWEN3_L40S_NEW: Deployment = {
  name: "Qwen3-14B L40S TP1 vLLM 0.24",
  model: "qwen/qwen3-14b",
  gpu: "L40S",
  tp: 1,
  vllmVersion: "0.24",
};

/**
 * Every property on every deployment: the curves are lower envelopes along each axis, decode rows
 * are monotone across batch sizes and a chunk's attention is a convex rise, so monotonicity holds by
 * construction (these include deployments where the raw tables dip: B200, A100 TP8, RTX 0.24 decode
 * batches; Llama-3.1-70B TP8, Qwen2.5-7B and Qwen3-14B prefill curves with concave stretches).
 */
const ALL = [
  LLAMA8_H100,
  LLAMA70_H100,
  MIXTRAL_H200,
  LLAMA70_A100,
  QWEN_L40S,
  LLAMA70_H100_TP8,
  LLAMA8_B200_NEW,
  LLAMA8_B200_OLD,
  LLAMA8_A100_TP8,
  LLAMA8_RTX_NEW,
  QWEN_H100,
  QWEN3_L40S_NEW,
];

const models = new Map<string, LatencyModel>();
async function modelOf(d: Deployment): Promise<LatencyModel> {
  let m = models.get(d.name);
  if (m === undefined) {
    const extra = d.vllmVersion !== undefined ? { vllmVersion: d.vllmVersion } : {};
    m = (await resolveKernels(d.model, d.gpu, d.tp, extra)).r.build();
    models.set(d.name, m);
  }
  return m;
}

const step = (m: LatencyModel, batch: StepRequestView[]): number => m.stepTime(batch, batch.length);

/** Two ordered values of an integer range. */
const ordered = (min: number, max: number): fc.Arbitrary<[number, number]> =>
  fc
    .tuple(fc.integer({ min, max }), fc.integer({ min, max }))
    .map(([a, b]): [number, number] => (a <= b ? [a, b] : [b, a]));

/** Decodes running beside the chunk (none, or up to 64 at one context). */
const background = fc.tuple(fc.integer({ min: 0, max: 64 }), fc.integer({ min: 1, max: 8000 }));

const RUNS = 150;

for (const d of ALL) {
  test(`monotone (${d.name}): more prefill tokens in a chunk, never a shorter step`, async () => {
    const m = await modelOf(d);
    fc.assert(
      fc.property(ordered(1, 16384), fc.integer({ min: 0, max: 20000 }), background, ([n1, n2], cached, [k, ctx]) => {
        const bg = decodes(k, ctx);
        const t1 = step(m, [chunk(cached, n1), ...bg]);
        const t2 = step(m, [chunk(cached, n2), ...bg]);
        assert.ok(t1 <= t2, `cached ${cached}, ${k} decodes at ${ctx}: ${n1} tokens ${t1} µs > ${n2} tokens ${t2} µs`);
      }),
      { seed: FC_SEED, numRuns: RUNS },
    );
  });
}

for (const d of ALL) {
  test(`monotone (${d.name}): more cached context before a chunk, never a shorter step`, async () => {
    const m = await modelOf(d);
    fc.assert(
      fc.property(ordered(0, 30000), fc.integer({ min: 1, max: 8192 }), background, ([c1, c2], n, [k, ctx]) => {
        const bg = decodes(k, ctx);
        const t1 = step(m, [chunk(c1, n), ...bg]);
        const t2 = step(m, [chunk(c2, n), ...bg]);
        assert.ok(t1 <= t2, `${n}-token chunk, ${k} decodes at ${ctx}: cached ${c1} ${t1} µs > cached ${c2} ${t2} µs`);
      }),
      { seed: FC_SEED, numRuns: RUNS },
    );
  });
}

for (const d of ALL) {
  test(`monotone (${d.name}): a larger decode batch, never a shorter step`, async () => {
    const m = await modelOf(d);
    fc.assert(
      fc.property(ordered(1, 1024), fc.integer({ min: 1, max: 30000 }), ([b1, b2], ctx) => {
        const t1 = step(m, decodes(b1, ctx));
        const t2 = step(m, decodes(b2, ctx));
        assert.ok(t1 <= t2, `context ${ctx}: batch ${b1} ${t1} µs > batch ${b2} ${t2} µs`);
      }),
      { seed: FC_SEED, numRuns: RUNS },
    );
  });
}

for (const d of ALL) {
  test(`monotone (${d.name}): a longer decode context, never a shorter step`, async () => {
    const m = await modelOf(d);
    fc.assert(
      fc.property(ordered(1, 60000), fc.integer({ min: 1, max: 512 }), ([c1, c2], b) => {
        const t1 = step(m, decodes(b, c1));
        const t2 = step(m, decodes(b, c2));
        assert.ok(t1 <= t2, `batch ${b}: context ${c1} ${t1} µs > context ${c2} ${t2} µs`);
      }),
      { seed: FC_SEED, numRuns: RUNS },
    );
  });
}

test("monotone: step times are whole positive µs", async () => {
  const m = await modelOf(LLAMA8_H100);
  for (const batch of [[chunk(0, 1)], decodes(1, 1), [chunk(100, 3000), ...decodes(7, 900)]]) {
    const t = step(m, batch);
    assert.ok(Number.isInteger(t) && t >= 1, String(t));
  }
  assert.equal(m.stepTime([], 0), 1, "an empty step takes one tick");
});
