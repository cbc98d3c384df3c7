// The report's time series stays within its memory cap for any --report-interval: a grid too fine
// for the run doubles until it fits, with one line on stderr, and the samples kept are exactly those
// a run asked for the coarser interval records.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { simulate } from "../../src/sim/simulate.js";
import { silentLogger } from "../../src/util/log.js";
import { MAX_SERIES_SAMPLES } from "../../src/metrics/timeSeries.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const BIN = path.join(ROOT, "dist/src/cli/bin.js");
const MODEL = "meta-llama/llama-3.1-8b-instruct";

test(
  "--report-interval 1 finishes within a 512 MB heap, the grid coarsened with one stderr line",
  { timeout: 120_000 },
  () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "blis-tscap-"));
    const html = path.join(dir, "r.html");
    const args = [
      "--max-old-space-size=512",
      BIN,
      "run",
      "--model",
      MODEL,
      "--num-requests",
      "20",
      "--report",
      html,
      "--report-interval",
      "1",
    ];
    const r = spawnSync(process.execPath, args, { encoding: "utf8", timeout: 110_000 });
    assert.equal(r.status, 0, r.stderr.slice(-2000));
    const notes = r.stderr.split("\n").filter((l) => l.includes("--report-interval"));
    assert.equal(notes.length, 1, r.stderr);
    const m =
      /--report-interval 1 µs would exceed the time series' memory cap; the report samples every (\d+) µs instead/.exec(
        notes[0]!,
      );
    assert.ok(m !== null, notes[0]);
    const ts = (
      JSON.parse(fs.readFileSync(path.join(dir, "r.json"), "utf8")) as {
        timeSeries: { intervalUs: number; timesUs: number[] };
      }
    ).timeSeries;
    assert.equal(ts.intervalUs, Number(m[1]));
    assert.ok(
      ts.timesUs.length <= MAX_SERIES_SAMPLES && ts.timesUs.length > MAX_SERIES_SAMPLES / 2,
      `${ts.timesUs.length} samples`,
    );
    ts.timesUs.forEach((t, i) => assert.equal(t, (i + 1) * ts.intervalUs));
    // Stdout does not depend on the report or its interval.
    const plain = spawnSync(process.execPath, [BIN, "run", "--model", MODEL, "--num-requests", "20"], {
      encoding: "utf8",
    });
    assert.equal(r.stdout, plain.stdout);
  },
);

test("a coarsened series holds the same samples as a run at the coarser interval", { timeout: 60_000 }, async () => {
  const run = (reportInterval: number) =>
    simulate(
      { model: MODEL, numRequests: 5, rate: 1, reportInterval },
      { logger: silentLogger, recordTimeSeries: true },
    );
  const fine = (await run(16)).run.timeSeries!;
  assert.ok(fine.intervalUs > 16, `coarsened to ${fine.intervalUs}`);
  const direct = (await run(fine.intervalUs)).run.timeSeries!;
  assert.deepEqual(fine, direct);
});
