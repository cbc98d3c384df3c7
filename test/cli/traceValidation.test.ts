// Traces that cannot be what they claim are refused with one line naming the file, the line and the
// column: an unknown trace_version (replay, calibrate, run --replay-trace), negative arrival or
// send times (trace v2 and the legacy CSV), legacy rows without prompt tokens, and legacy rows out
// of arrival order (which used to surface as "aggregate_rate must be positive").

import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { cli } from "../helpers/cli.js";

const FIX = fileURLToPath(new URL("../../../test/fixtures/calibration/", import.meta.url));
const HEADER = fs.readFileSync(path.join(FIX, "trace-header.yaml"), "utf8");
const DATA = fs.readFileSync(path.join(FIX, "trace-data.csv"), "utf8");
const M = ["--model", "meta-llama/llama-3.1-8b-instruct"];
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "blis-trace-"));
process.on("exit", () => fs.rmSync(dir, { recursive: true, force: true }));

function write(name: string, text: string): string {
  const p = path.join(dir, name);
  fs.writeFileSync(p, text);
  return p;
}

async function refused(args: string[], line: string): Promise<void> {
  const r = await cli(args);
  assert.equal(r.code, 1, `${args.join(" ")}: ${r.stderr.join(" | ")}`);
  assert.equal(r.stdout, "");
  assert.equal(r.stderr.filter((l) => l.startsWith("error:")).at(-1), line);
}

test("trace_version 99 is refused by replay, calibrate and run --replay-trace", async () => {
  const h = write("v99.yaml", HEADER.replace("trace_version: 3", "trace_version: 99"));
  const d = write("v99.csv", DATA);
  const why = `parsing trace header ${h}: trace_version must be 2 or 3, got 99`;
  await refused(["replay", "--trace-header", h, "--trace-data", d, ...M], `error: ${why}`);
  await refused(
    ["run", ...M, "--replay-trace", h, "--replay-trace-data", d],
    `error: --replay-trace: Failed to load trace: ${why}`,
  );
  const sim = path.join(FIX, "sim-results.json");
  const r = await cli(["calibrate", "--trace-header", h, "--trace-data", d, "--sim-results", sim]);
  assert.equal(r.code, 1);
  assert.match(r.stderr.at(-1)!, /trace_version must be 2 or 3, got 99/);
});

test("trace v2: negative arrival and send times name the line and column", async () => {
  const h = write("neg.yaml", HEADER);
  const lines = DATA.split("\n");
  const cells = lines[1]!.split(",");
  cells[19] = "-5";
  const d = write("neg.csv", [lines[0], cells.join(","), ...lines.slice(2)].join("\n"));
  await refused(
    ["replay", "--trace-header", h, "--trace-data", d, ...M],
    `error: ${d} line 2, column arrival_time_us: must be >= 0, got -5`,
  );
  cells[19] = "0";
  cells[20] = "-1";
  const d2 = write("neg2.csv", [lines[0], cells.join(","), ...lines.slice(2)].join("\n"));
  await refused(
    ["replay", "--trace-header", h, "--trace-data", d2, ...M],
    `error: ${d2} line 2, column send_time_us: must be >= 0, got -1`,
  );
});

const LEGACY_HEAD = "arrival_time,a,b,prefill_tokens,decode_tokens\n";

test("legacy CSV traces: negative, unordered and empty-prompt rows", async () => {
  const cases: [string, string][] = [
    ['-1.0,x,y,"[1,2]","[1]"\n', "row 0: arrival_time must be a finite number >= 0, got -1.0"],
    [
      '2.0,x,y,"[1,2]","[1]"\n0.5,x,y,"[1,2]","[1]"\n',
      "row 1: arrival_time 0.5 is before the previous row's (rows must be in arrival order)",
    ],
    ['1.0,x,y,"[]","[]"\n', "row 0: prefill_tokens is empty (a request needs at least one input token)"],
  ];
  for (const [rows, why] of cases) {
    const f = write("legacy.csv", LEGACY_HEAD + rows);
    await refused(["convert", "csv-trace", "--file", f], `error: CSV ${f} ${why}`);
    await refused(
      ["run", ...M, "--workload", "traces", "--workload-traces-filepath", f],
      `error: Failed to load CSV trace: CSV ${f} ${why}`,
    );
  }
  const ok = write("ok.csv", LEGACY_HEAD + '0.5,x,y,"[1,2]","[]"\n2.0,x,y,"[1,2,3]","[1]"\n');
  const r = await cli(["convert", "csv-trace", "--file", ok]);
  assert.equal(r.code, 0, r.stderr.join("\n"));
});
