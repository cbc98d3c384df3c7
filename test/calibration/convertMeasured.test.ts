// `blis convert measured` (docs/traces.md "Measured CSVs"): any per-request CSV with arrival,
// token counts, TTFT and E2E, columns named by flags, to a trace v2 pair.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { DEFAULT_MEASURED_COLUMNS, traceFromMeasured } from "../../src/calibration/convertMeasured.js";
import { traceFromInferencePerfCsv } from "../../src/calibration/measuredCsv.js";
import { loadTraceV2 } from "../../src/workload/index.js";
import { cli } from "../helpers/cli.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const BUNDLED = path.join(ROOT, "data/calibration/traces/h100-llama-2-7b-tp1-roleplay.csv");

test("a bundled measured run converts to the trace fit reads from the same CSV", () => {
  const text = fs.readFileSync(BUNDLED, "utf8");
  const ours = traceFromMeasured(text, BUNDLED, {
    columns: DEFAULT_MEASURED_COLUMNS,
    timeUnit: "us",
    promptCycle: 100,
  });
  const fits = traceFromInferencePerfCsv(text, BUNDLED);
  assert.equal(ours.records.length, 7200);
  assert.deepEqual(
    ours.records.map((r) => ({ ...r, client_id: "" })),
    fits.records.map((r) => ({ ...r, client_id: "" })),
  );
});

test("columns named by flags, times in milliseconds, no prompt sharing", () => {
  const csv = "id,t_ms,prompt,gen,first_ms,total_ms\n0,0,100,10,25.5,300\n1,12.25,50,4,10,60\n";
  const cols = { arrival: "t_ms", input: "prompt", output: "gen", ttft: "first_ms", e2e: "total_ms" };
  const t = traceFromMeasured(csv, "m.csv", { columns: cols, timeUnit: "ms", promptCycle: 0 });
  assert.deepEqual(
    t.records.map((r) => [
      r.request_id,
      r.input_tokens,
      r.output_tokens,
      r.send_time_us,
      r.first_chunk_time_us,
      r.last_chunk_time_us,
      r.prefix_group,
    ]),
    [
      [0, 100, 10, 0, 25500, 300000, ""],
      [1, 50, 4, 12250, 22250, 72250, ""],
    ],
  );
});

test("missing columns, bad numbers and E2E below TTFT name the file and line", () => {
  const o = { columns: DEFAULT_MEASURED_COLUMNS, timeUnit: "us", promptCycle: 0 };
  assert.throws(
    () => traceFromMeasured("arrival_time_us,input_tokens\n0,1\n", "a.csv", o),
    /a\.csv:1: no column "output_tokens" .*--output-column/,
  );
  const head = "arrival_time_us,input_tokens,output_tokens,ttft_us,e2e_us\n";
  assert.throws(
    () => traceFromMeasured(head + "0,1,1,5,9\n1,x,1,5,9\n", "b.csv", o),
    /b\.csv:3: column input_tokens: not a number: "x"/,
  );
  assert.throws(
    () => traceFromMeasured(head + "0,1,1,5,-9\n", "c.csv", o),
    /c\.csv:2: column e2e_us: negative value -9/,
  );
  assert.throws(
    () => traceFromMeasured(head + "0,1,1,50,9\n", "d.csv", o),
    /d\.csv:2: column e2e_us: E2E 9 µs is below TTFT 50 µs/,
  );
  assert.throws(() => traceFromMeasured(head, "e.csv", o), /e\.csv: no requests/);
  assert.throws(
    () => traceFromMeasured(head + "0,1,1,5,9\n", "f.csv", { ...o, timeUnit: "h" }),
    /--time-unit must be us, ms or s/,
  );
});

test("the command writes a pair replay reads, and writes nothing on a bad input or output path", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "blis-measured-"));
  const h = path.join(dir, "t.yaml");
  const d = path.join(dir, "t.csv");
  const ok = await cli([
    "convert",
    "measured",
    BUNDLED,
    "--prompt-cycle",
    "100",
    "--trace-header",
    h,
    "--trace-data",
    d,
  ]);
  assert.equal(ok.code, 0, ok.stderr.join("\n"));
  const trace = loadTraceV2(h, d);
  assert.equal(trace.header.mode, "real");
  assert.equal(trace.records.length, 7200);
  assert.equal(trace.records[5]!.prefix_group, "p5");

  const bad = path.join(dir, "bad.csv");
  fs.writeFileSync(bad, "arrival_time_us,input_tokens,output_tokens,ttft_us,e2e_us\n0,1,1,5,oops\n");
  const h2 = path.join(dir, "u.yaml");
  const d2 = path.join(dir, "u.csv");
  const r = await cli(["convert", "measured", bad, "--trace-header", h2, "--trace-data", d2]);
  assert.equal(r.code, 1);
  assert.ok(
    r.stderr.some((l) => l.includes(`${bad}:2: column e2e_us: not a number`)),
    r.stderr.join("\n"),
  );
  assert.ok(!fs.existsSync(h2) && !fs.existsSync(d2));
  // A missing directory is created (one rule for outputs); a path under a regular file cannot be.
  const nowhere = await cli([
    "convert",
    "measured",
    BUNDLED,
    "--trace-header",
    path.join(bad, "h.yaml"),
    "--trace-data",
    d2,
  ]);
  assert.equal(nowhere.code, 1);
  assert.ok(
    nowhere.stderr.some((l) => l.includes("--trace-header")),
    nowhere.stderr.join("\n"),
  );
  const cyc = await cli([
    "convert",
    "measured",
    BUNDLED,
    "--prompt-cycle",
    "-1",
    "--trace-header",
    h2,
    "--trace-data",
    d2,
  ]);
  assert.equal(cyc.code, 1);
  assert.ok(!fs.existsSync(d2));
  fs.rmSync(dir, { recursive: true, force: true });
});
