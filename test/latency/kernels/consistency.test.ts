// The kernels model's three views of a step agree (docs/latency.md "Kernels"): the decode-cohort
// shortcut equals listing the decodes, and the fit's features times the overheads are the step time.

import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { KernelLatencyModel } from "../../../src/latency/kernels/kernelModel.js";
import type { StepRequestView } from "../../../src/latency/model.js";
import { FC_SEED } from "../../helpers/fc.js";
import { chunk, decode, LLAMA_8B, MIXTRAL, resolveKernels } from "./helpers.js";

const prefills = fc.array(
  fc.record({ cached: fc.integer({ min: 0, max: 6000 }), n: fc.integer({ min: 1, max: 2048 }) }),
  { maxLength: 4 },
);
const contexts = fc.array(fc.integer({ min: 1, max: 20000 }), { maxLength: 300 });

for (const [name, model, gpu, tp] of [
  ["Llama-3.1-8B H100 TP1", LLAMA_8B, "H100", 1],
  ["Mixtral-8x7B B200 TP4", MIXTRAL, "B200", 4],
] as const) {
  test(`consistency (${name}): stepTimeWithDecodes(k, Σ context) = stepTime with the k decodes listed`, async () => {
    const m = (await resolveKernels(model, gpu, tp)).r.build();
    fc.assert(
      fc.property(prefills, contexts, (ps, ctxs) => {
        const head: StepRequestView[] = ps.map((p) => chunk(p.cached, p.n));
        const listed = [...head, ...ctxs.map(decode)];
        const sum = ctxs.reduce((s, c) => s + c, 0);
        assert.equal(m.stepTimeWithDecodes!(head, head.length, ctxs.length, sum), m.stepTime(listed, listed.length));
      }),
      { seed: FC_SEED, numRuns: 150 },
    );
  });

  test(`consistency (${name}): the fit's features weighted by (1, overheads) are the step time`, async () => {
    const beta = [120, 2.5, 7, 3];
    const m = (await resolveKernels(model, gpu, tp, { alphaCoeffs: [1000, 0, 0], betaCoeffs: beta })).r.build();
    assert.ok(m instanceof KernelLatencyModel);
    const f = new Float64Array(5);
    fc.assert(
      fc.property(prefills, contexts, (ps, ctxs) => {
        const batch = [...ps.map((p) => chunk(p.cached, p.n)), ...ctxs.map(decode)];
        m.stepFeatures(batch, batch.length, f);
        const t = m.stepTime(batch, batch.length);
        if (batch.length === 0) {
          assert.deepEqual([...f], [0, 0, 0, 0, 0]);
          return;
        }
        const composed = f[0]! + beta[0]! * f[1]! + beta[1]! * f[2]! + beta[2]! * f[3]! + beta[3]! * f[4]!;
        assert.equal(t, Math.max(1, Math.trunc(composed)));
        assert.equal(f[3], batch.length, "one scheduled request per view");
        assert.equal(
          f[4],
          ps.filter((p) => p.n > 0).length + ctxs.length,
          "chunks that finish their prompt, and decodes, emit a token",
        );
      }),
      { seed: FC_SEED, numRuns: 150 },
    );
  });
}
