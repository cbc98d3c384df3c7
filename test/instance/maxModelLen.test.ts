// Max-model-len at enqueue (docs/behavior.md "Enqueue and unservable requests", C16): a request is
// dropped when its prompt leaves no room for output or prompt + output exceed the limit; otherwise it
// completes with its whole output, so nothing is ever length-capped.
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { simulate } from "../../src/sim/simulate.js";
import { silentLogger } from "../../src/util/log.js";
import { FC_SEED } from "../helpers/fc.js";

const constant = (value: number) => ({ type: "constant", params: { value } });

/** One request of prompt L and output O on an instance with max-model-len `len`. */
async function one(L: number, O: number, len: number, timeout = -1) {
  const spec = {
    version: "2",
    seed: 1,
    aggregate_rate: 1,
    num_requests: 1,
    clients: [
      {
        id: "c",
        rate_fraction: 1,
        arrival: { process: "poisson" },
        input_distribution: constant(L),
        output_distribution: constant(O),
      },
    ],
  };
  const res = await simulate(
    { model: "meta-llama/llama-3.1-8b-instruct", maxModelLen: len, workloadSpecObject: spec, timeout },
    { logger: silentLogger },
  );
  // Constant lengths are floored at 1 (docs/behavior.md#w3): the output actually asked for.
  return { ...res.metrics.cluster, asked: res.run.ledger.outputLen[0]! };
}

test("the worked example of today's BLIS: L 2000 under len 2048 serves 48 output tokens, not 49", async () => {
  const fits = await one(2000, 48, 2048);
  assert.equal(fits.completed_requests, 1);
  assert.equal(fits.total_output_tokens, 48, "the whole output, on today's timeline O per completed request");
  const over = await one(2000, 49, 2048);
  assert.equal(over.completed_requests, 0);
  assert.equal(over.dropped_unservable, 1);
});

test("a prompt at the limit leaves no room for output; one token short of it serves one token", async () => {
  assert.equal((await one(2048, 1, 2048)).dropped_unservable, 1);
  const last = await one(2047, 1, 2048);
  assert.equal(last.completed_requests, 1);
  assert.equal(last.total_output_tokens, 1);
});

test("dropped iff L >= len or L + O > len; otherwise completed whole; never length-capped", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.integer({ min: 16, max: 600 }),
      fc.integer({ min: 1, max: 600 }),
      fc.integer({ min: 0, max: 300 }),
      async (len, L, O) => {
        const c = await one(L, O, len, 3600);
        const drop = L >= len || L + c.asked > len;
        assert.equal(c.dropped_unservable, drop ? 1 : 0, `len ${len} L ${L} O ${c.asked}`);
        assert.equal(c.completed_requests, drop ? 0 : 1);
        if (!drop) assert.equal(c.total_output_tokens, c.asked);
        assert.equal(c.length_capped_requests, 0);
      },
    ),
    { numRuns: 40, seed: FC_SEED },
  );
});
