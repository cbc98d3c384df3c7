// Negative alpha/beta coefficients give negative step times and latencies: every backend refuses
// them with the flag and the index, exit status 1, before anything is simulated.

import { test } from "node:test";
import assert from "node:assert/strict";
import { cli } from "../helpers/cli.js";

const RUN = ["run", "--model", "meta-llama/llama-3.1-8b-instruct", "--num-requests", "5"];

async function refused(args: string[], line: string): Promise<void> {
  const r = await cli([...RUN, ...args]);
  assert.equal(r.code, 1, r.stderr.join("\n"));
  assert.equal(r.stdout, "");
  assert.deepEqual(
    r.stderr.filter((l) => l.startsWith("error:")),
    [line],
  );
}

test("blackbox: negative betas and alphas are refused", async () => {
  await refused(
    ["--alpha-coeffs", "1,1,1", "--beta-coeffs", "-1000,-1000,-1000"],
    "error: --beta-coeffs[0] must be a finite non-negative number, got -1000",
  );
  await refused(
    ["--latency-model", "blackbox", "--alpha-coeffs", "1,-2,1", "--beta-coeffs", "1,1,1"],
    "error: --alpha-coeffs[1] must be a finite non-negative number, got -2",
  );
});

test("the seed roofline: a negative alpha is refused", async () => {
  await refused(
    ["--roofline", "--hardware", "H100", "--tp", "1", "--alpha-coeffs", "-1,1,1", "--beta-coeffs", "1,1,1"],
    "error: --alpha-coeffs[0] must be a finite non-negative number, got -1",
  );
});

test("zero and positive coefficients are still accepted", async () => {
  for (const c of ["0,0,0", "1000,2,1"]) {
    const r = await cli([...RUN, "--alpha-coeffs", c, "--beta-coeffs", c]);
    assert.equal(r.code, 0, r.stderr.join("\n"));
    assert.match(r.stdout, /"e2e_mean_ms": \d/);
  }
});
