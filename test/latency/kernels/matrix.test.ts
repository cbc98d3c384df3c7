// `--latency-model kernels` over the deployment matrix (docs/latency.md "Kernels"): Llama-3.1-8B,
// Llama-3.1-70B and Mixtral-8x7B on five GPUs at TP 1/2/4/8 simulate a few requests with sensible
// metrics where the weights fit, and fail as one line with exit status 1 where they do not.

import { test } from "node:test";
import assert from "node:assert/strict";
import { simulate } from "../../../src/sim/simulate.js";
import type { MetricsBlock } from "../../../src/metrics/metricsBlock.js";
import { UserError } from "../../../src/util/errors.js";
import { silentLogger } from "../../../src/util/log.js";
import { cli } from "../../helpers/cli.js";
import { LLAMA_70B, LLAMA_8B, MIXTRAL } from "./helpers.js";

const MATRIX_GPUS = ["H100", "H200", "B200", "A100-SXM", "L40S"];
const TPS = [1, 2, 4, 8];
const MODELS = [LLAMA_8B, LLAMA_70B, MIXTRAL];

/**
 * Where the bf16 weights do not fit in 90% of the GPUs' memory: Llama-3.1-70B (141 GB) needs more
 * than one 80 GB, 141 GB or 48 GB GPU and more than two 48 GB ones; Mixtral-8x7B (93 GB) more than
 * one 80 GB GPU and more than two 48 GB ones. B200 (192 GB) holds both on one GPU.
 */
const DOES_NOT_FIT = new Set([
  `${LLAMA_70B} H100 1`,
  `${LLAMA_70B} H200 1`,
  `${LLAMA_70B} A100-SXM 1`,
  `${LLAMA_70B} L40S 1`,
  `${LLAMA_70B} L40S 2`,
  `${MIXTRAL} H100 1`,
  `${MIXTRAL} A100-SXM 1`,
  `${MIXTRAL} L40S 1`,
  `${MIXTRAL} L40S 2`,
]);

const REQUESTS = 4;
const RUN = {
  numRequests: REQUESTS,
  promptTokens: 300,
  promptTokensStdev: 20,
  outputTokens: 12,
  outputTokensStdev: 2,
  rate: 2,
  seed: 7,
};

async function metrics(model: string, hardware: string, tp: number): Promise<MetricsBlock> {
  const res = await simulate({ model, hardware, tp, latencyModel: "kernels", ...RUN }, { logger: silentLogger });
  return res.resultsObject();
}

const ttft = new Map<string, number>();

for (const gpu of MATRIX_GPUS) {
  test(`matrix ${gpu}: every model at TP 1/2/4/8 runs with sensible metrics, or fails as a user error where it does not fit`, async () => {
    for (const model of MODELS) {
      for (const tp of TPS) {
        const key = `${model} ${gpu} ${tp}`;
        if (DOES_NOT_FIT.has(key)) {
          await assert.rejects(
            metrics(model, gpu, tp),
            (e) => e instanceof UserError && /KV capacity/.test(e.message),
            key,
          );
          continue;
        }
        const m = await metrics(model, gpu, tp);
        assert.equal(m.completed_requests, REQUESTS, key);
        assert.ok(m.total_output_tokens >= REQUESTS * 2, key);
        assert.ok(m.ttft_mean_ms > 0 && m.itl_mean_ms > 0 && m.tokens_per_sec > 0, `${key}: ${JSON.stringify(m)}`);
        assert.ok(m.e2e_mean_ms > m.ttft_mean_ms, key);
        // Steps of a few requests: above 1 ms (reading 16+ GB of weights), below a quarter second
        // (Llama-3.1-70B on four L40S reads 35 GB per GPU at 864 GB/s: 41 ms per step at best).
        assert.ok(m.itl_mean_ms >= 1 && m.itl_mean_ms < 250, `${key}: ITL ${m.itl_mean_ms} ms`);
        ttft.set(key, m.ttft_mean_ms);
      }
      if (model === LLAMA_70B) {
        for (const tp of TPS) {
          const [small, large] = [ttft.get(`${LLAMA_8B} ${gpu} ${tp}`), ttft.get(`${LLAMA_70B} ${gpu} ${tp}`)];
          if (small !== undefined && large !== undefined)
            assert.ok(large > small, `${gpu} TP${tp}: 70B TTFT ${large} <= 8B ${small}`);
        }
      }
    }
  });
}

test("matrix: a deployment that does not fit is exit status 1 and one error line", async () => {
  const res = await cli([
    "run",
    "--model",
    LLAMA_70B,
    "--hardware",
    "L40S",
    "--tp",
    "2",
    "--latency-model",
    "kernels",
    "--num-requests",
    "2",
  ]);
  assert.equal(res.code, 1);
  assert.equal(res.stdout, "");
  const errors = res.stderr.filter((l) => l.startsWith("error: "));
  assert.equal(errors.length, 1, res.stderr.join("\n"));
  assert.match(errors[0]!, /KV capacity/);
});
