// Runs too large for the heap are refused up front with one line saying what fits
// (docs/behavior.md "Validation order and exit status", memory budget).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { BYTES_PER_REQUEST, checkMemoryBudget, requestBound } from "../../src/sim/memoryBudget.js";
import { UserError } from "../../src/util/errors.js";
import type { WorkloadSpec } from "../../src/workload/index.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const BIN = path.join(ROOT, "dist/src/cli/bin.js");
const MODEL = "meta-llama/llama-3.1-8b-instruct";

/** `blis run` in a child with a 4 GB heap, so the figures in the line do not depend on the machine. */
function blis(args: string[]): { code: number | null; stdout: string; stderr: string; wallS: number } {
  const t0 = Date.now();
  const r = spawnSync(process.execPath, ["--max-old-space-size=4096", BIN, "run", "--model", MODEL, ...args], {
    encoding: "utf8",
    timeout: 60_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, wallS: (Date.now() - t0) / 1000 };
}

test("10 million requests at 100 req/s are refused at once with what fits", () => {
  const r = blis(["--num-requests", "10000000", "--rate", "100"]);
  assert.equal(r.code, 1, r.stderr);
  assert.equal(r.stdout, "");
  assert.equal(
    r.stderr,
    "error: --num-requests 10000000 needs about 7.0 GB; this process may use 4.3 GB (Node heap limit): at most ~6,200,000 requests fit; " +
      "raise the limit (NODE_OPTIONS=--max-old-space-size=MB) or lower --num-requests\n",
  );
  assert.ok(r.wallS < 20, `refused after ${r.wallS} s`);
});

test("100 million closed-loop users over a 1 s horizon are refused before any is generated", () => {
  const r = blis(["--concurrency", "100000000", "--horizon", "1000000"]);
  assert.equal(r.code, 1, r.stderr);
  assert.equal(r.stdout, "");
  assert.match(
    r.stderr,
    /^error: --concurrency 100000000 needs about 70\.0 GB; .* at most ~6,\d00,000 virtual users fit; .* lower --concurrency\n$/,
  );
  assert.ok(r.wallS < 20, `refused after ${r.wallS} s`);
});

const spec = (over: Partial<WorkloadSpec> = {}): WorkloadSpec =>
  ({ aggregate_rate: 10, clients: [{ id: "c" }], cohorts: [], ...over }) as unknown as WorkloadSpec;

test("the request count: the cap, else rate × horizon plus one request per virtual user", () => {
  assert.deepEqual(requestBound(spec(), 500, Infinity, false), {
    requests: 500,
    flag: "--num-requests",
    value: 500,
    unit: "requests",
  });
  assert.deepEqual(requestBound(spec(), 0, 60e6, false), {
    requests: 600,
    flag: "--horizon",
    value: 60e6,
    unit: "requests",
  });
  const users = spec({ aggregate_rate: 0, clients: [{ id: "u", concurrency: 2000 }] as WorkloadSpec["clients"] });
  assert.deepEqual(requestBound(users, 0, 1e6, true), {
    requests: 2000,
    flag: "--concurrency",
    value: 2000,
    unit: "virtual users",
  });
  assert.equal(requestBound(spec(), 0, Infinity, false), null);
});

test("the budget: a run just inside passes, one just outside is refused naming the flag's limit", () => {
  const budget = 1000 * BYTES_PER_REQUEST;
  const bound = (n: number) => ({ requests: n, flag: "--num-requests", value: n, unit: "requests" });
  assert.doesNotThrow(() => checkMemoryBudget(bound(1000), 0, budget));
  assert.throws(
    () => checkMemoryBudget(bound(1001), 0, budget),
    (e: unknown) =>
      e instanceof UserError &&
      /needs about 1 MB; this process may use 1 MB .* at most ~1,000 requests fit/.test(e.message),
  );
  // A horizon-bound run is told the longest horizon that fits.
  const h = { requests: 2000, flag: "--horizon", value: 200e6, unit: "requests" };
  assert.throws(
    () => checkMemoryBudget(h, 0, budget),
    /--horizon 200000000 \(about 2,000 requests\) needs .* a --horizon of at most ~100,000,000 fit/,
  );
  // Instances count too: 35 of them take the whole budget.
  assert.throws(() => checkMemoryBudget(bound(10), 35, budget), /at most ~0 requests fit/);
});
