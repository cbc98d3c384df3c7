// `blis saturation` against a fine rate sweep of the same configuration (reduced: 1500 requests per
// probe): the rate it finds sits where TTFT p99 turns up, and its output does not depend on --jobs.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { cli } from "../helpers/cli.js";
import { simulate } from "../../src/sim/simulate.js";
import { silentLogger } from "../../src/util/log.js";
import { bracket, ladder, refine, type Probe } from "../../src/experiment/saturationSearch.js";

const MODEL = "meta-llama/llama-3.1-8b-instruct";
const SEARCH = [
  "saturation",
  "--model",
  MODEL,
  "--requests",
  "1500",
  "--min-rate",
  "4",
  "--max-rate",
  "64",
  "--precision",
  "0.05",
];

test(
  "the rate found is where a fine sweep's TTFT p99 turns up, with the same stdout for any --jobs",
  { timeout: 120_000 },
  async () => {
    const csv = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "blis-satsearch-")), "probes.csv");
    const one = await cli([...SEARCH, "--jobs", "1", "--out", csv]);
    assert.equal(one.code, 0, one.stderr.join("\n"));
    assert.deepEqual(one.stderr, [], "no progress when stderr is not a terminal");
    const two = await cli([...SEARCH, "--jobs", "2"]);
    assert.equal(two.stdout, one.stdout);
    const m = /^Saturation rate: ([\d.]+) req\/s \(highest sustained probe: ([\d.]+) req\/s\)$/m.exec(one.stdout);
    assert.ok(m !== null, one.stdout);
    const found = Number(m[1]);
    assert.ok((found - Number(m[2])) / found <= 0.05, "the bracket closed to the precision");
    const rows = fs.readFileSync(csv, "utf8").trim().split("\n");
    assert.equal(
      rows[0],
      "rate,offered,responses_per_sec,ratio,ttft_p99_ms,e2e_p99_ms,still_queued,still_running,composite,threshold,backlog-drift,saturated",
    );
    assert.ok(rows.some((r) => r.startsWith(`${found},`) && r.endsWith(",true")));

    // The fine sweep: the first rate whose TTFT p99 is over three times the lightest load's.
    const rates = [12, 16, 17, 18, 19, 20, 21, 22, 23];
    const p99: number[] = [];
    for (const rate of rates) {
      const r = await simulate({ model: MODEL, numRequests: 1500, rate, seed: 42 }, { logger: silentLogger });
      p99.push(r.metrics.cluster.ttft_p99_ms);
    }
    const knee = rates[p99.findIndex((v) => v > 3 * p99[0]!)]!;
    assert.ok(knee !== undefined, `no knee in ${p99.join(", ")}`);
    assert.ok(
      Math.abs(found - knee) / knee <= 0.1,
      `found ${found} req/s, TTFT p99 turns up at ${knee} (${p99.join(", ")})`,
    );
  },
);

test("the search's rates: a doubling ladder, even refinement, and the bracket", () => {
  assert.deepEqual(ladder(1, 20), [1, 2, 4, 8, 16, 20]);
  assert.deepEqual(ladder(5, 5), [5]);
  assert.deepEqual(refine(16, 32, 3), [20, 24, 28]);
  const p = (rate: number, saturated: boolean): Probe =>
    ({
      rate,
      saturated,
      offered: 0,
      responsesPerSec: 0,
      ratio: 0,
      ttftP99Ms: 0,
      e2eP99Ms: 0,
      stillQueued: 0,
      stillRunning: 0,
      labels: {},
    }) as Probe;
  assert.deepEqual(
    bracket([p(4, false), p(8, true), p(6, false), p(16, false)]),
    { lo: 6, hi: 8 },
    "a sustained probe above the first saturated one is ignored",
  );
  assert.deepEqual(bracket([p(4, true)]), { lo: null, hi: 4 });
  assert.deepEqual(bracket([p(4, false)]), { lo: 4, hi: null });
});

test("bad search flags are one line naming the flag", async () => {
  for (const [args, re] of [
    [["--min-rate", "0"], /--min-rate must be a finite number > 0, got "0"/],
    [["--min-rate", "10", "--max-rate", "5"], /--min-rate \(10\) must not exceed --max-rate \(5\)/],
    [["--requests", "1.5"], /--requests must be a positive integer/],
    [["--detectors", "nope"], /unknown saturation detector "nope"/],
    [["--precision", "1"], /--precision must be below 1/],
    [["--model", ""], /LLM name not provided/],
  ] as [string[], RegExp][]) {
    const r = await cli(["saturation", "--model", MODEL, ...args]);
    assert.equal(r.code, 1, args.join(" "));
    assert.equal(r.stderr.length, 1, r.stderr.join(" | "));
    assert.match(r.stderr[0]!, re);
    assert.equal(r.stdout, "");
  }
});
