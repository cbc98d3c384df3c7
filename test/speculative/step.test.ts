// The verification step's price and the proposers' cost (docs/speculative.md "The step",
// "Proposal cost"), and acceptance by SLO class and tenant.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import type { LatencyModel, StepRequestView } from "../../src/latency/model.js";
import { TrainedPhysicsLatencyModel } from "../../src/latency/trainedPhysics.js";
import { loadCoefficientFile } from "../../src/latency/coefficientFile.js";
import { BlackboxLatencyModel } from "../../src/latency/blackbox.js";
import { NGRAM_STEP_US, proposalCost } from "../../src/speculative/proposalCost.js";
import { Request } from "../../src/core/request.js";
import { bundledArch, currentHardware, LLAMA_8B } from "../latency/archHelpers.js";
import { DATA_DIR } from "../latency/helpers.js";
import { req, run, simConfig } from "../helpers/sim.js";
import { specPlan, speculating } from "./helpers.js";

const COEFFS = loadCoefficientFile(join(DATA_DIR, "head", "trained-physics.yaml")).trained_physics_coefficients;
const trained = (): TrainedPhysicsLatencyModel =>
  new TrainedPhysicsLatencyModel(bundledArch(LLAMA_8B, "meta-llama/llama-3.1-8b-instruct"), currentHardware("H100"), {
    alpha: COEFFS.alpha_coeffs,
    beta: COEFFS.beta_coeffs,
    tp: 1,
    dp: 1,
    moeCommBackend: "",
  });

const decode = (pi: number, n: number): StepRequestView => ({ pi, inputLen: 100, outputLen: 500, numNewTokens: n });

test("trained physics prices a verification step's tokens: more than a decode, and as n tokens at PI, PI+1, ...", () => {
  const m = trained();
  const batch = (n: number) => Array.from({ length: 64 }, (_, i) => decode(200 + i * 50, n));
  const one = m.stepTime(batch(1), 64);
  const four = m.stepTime(batch(4), 64);
  assert.ok(four > one, `${four} > ${one}`);
  // D and S as the aggregates of 4 tokens each: D = 256, S = Σ (4·PI + 6).
  let S = 0;
  for (let i = 0; i < 64; i++) S += 4 * (200 + i * 50) + 6;
  assert.equal(four, m.stepFromAggregates(0, 256, S, 64, 0));
});

function spec(pi: number, k: number): Request {
  const r = new Request(req("request_0", 0, 100, 500), 0, 16);
  r.pi = pi;
  r.specTokens = k;
  r.numNewTokens = 1 + k;
  return r;
}

test("proposal cost: n-gram a constant, a head one target layer per pass, a draft model its own steps", () => {
  const target: LatencyModel = trained();
  const batch = [spec(300, 3), spec(400, 3), spec(500, 0)];
  batch[2]!.numNewTokens = 1;
  assert.equal(proposalCost({ method: "ngram", target, targetLayers: 32, draft: null }).time(batch, 3), NGRAM_STEP_US);
  assert.equal(proposalCost({ method: "ngram", target, targetLayers: 32, draft: null }).time(batch.slice(2), 1), 0);
  const plain = (rs: Request[]): number => {
    const views = rs.map((r) => ({ pi: r.pi, inputLen: r.inputLen, outputLen: r.outputLen, numNewTokens: 1 }));
    return target.stepTime(views, views.length);
  };
  const head = proposalCost({ method: "eagle", target, targetLayers: 32, draft: null }).time(batch, 3);
  assert.equal(head, Math.round((plain(batch) + 2 * plain(batch.slice(0, 2))) / 32));
  // The batch's shape is left as it was.
  assert.deepEqual(
    batch.map((r) => r.numNewTokens),
    [4, 4, 1],
  );
  const small = new BlackboxLatencyModel([0, 0, 0], [500, 1, 10]);
  const draft = proposalCost({ method: "draft_model", target, targetLayers: 32, draft: small }).time(batch, 3);
  assert.equal(draft, 500 + 3 * 10 + 2 * (500 + 2 * 10));
});

test("acceptance follows the tenant, then the SLO class, then the run-wide rate", () => {
  const plan = specPlan({
    method: "ngram",
    num_speculative_tokens: 2,
    acceptance_rate: 0,
    acceptance_by_slo_class: { batch: 1 },
    acceptance_by_tenant: { coder: [1, 1] },
  });
  const reqs = [
    req("request_0", 0, 50, 41, { sloClass: "batch" }),
    req("request_1", 1e9, 50, 41, { tenantId: "coder", sloClass: "critical" }),
    req("request_2", 2e9, 50, 41, { sloClass: "critical" }),
  ];
  const res = run({ ...simConfig(), features: [speculating(plan)] }, reqs);
  const m = res.metrics.cluster.speculative!;
  // 40 decode tokens each: the first two emit 1 + 2 per step (13 drafts, then one plain step for
  // the last token); the third has every proposal rejected.
  assert.equal(m.num_accepted_tokens, 2 * 26);
  assert.equal(res.metrics.cluster.completed_requests, 3);
});

test("disable_by_batch_size: steps with that many running requests do not speculate", () => {
  const reqs = Array.from({ length: 6 }, (_, i) => req(`request_${i}`, 0, 40, 30));
  const on = run(
    {
      ...simConfig(),
      features: [speculating(specPlan({ method: "ngram", num_speculative_tokens: 2, acceptance_rate: 1 }))],
    },
    reqs,
  );
  const gated = run(
    {
      ...simConfig(),
      features: [
        speculating(
          specPlan({
            method: "ngram",
            num_speculative_tokens: 2,
            acceptance_rate: 1,
            disable_by_batch_size: 4,
          }),
        ),
      ],
    },
    Array.from({ length: 6 }, (_, i) => req(`request_${i}`, 0, 40, 30)),
  );
  const a = on.metrics.cluster.speculative!;
  const b = gated.metrics.cluster.speculative!;
  assert.equal(a.disabled_steps, 0);
  // All six run together until they complete: no step of theirs speculates.
  assert.ok(b.disabled_steps > 0);
  assert.equal(b.num_drafts, 0);
  assert.ok(a.num_drafts > 0);
  assert.equal(gated.metrics.cluster.total_output_tokens, on.metrics.cluster.total_output_tokens);
});
