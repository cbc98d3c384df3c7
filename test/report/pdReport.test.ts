// The run report of a PD run has a disaggregation section: per-pool panels and the transfer times.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { cli } from "../helpers/cli.js";

const BASE = [
  "run",
  "--model",
  "meta-llama/llama-3.1-8b-instruct",
  "--num-instances",
  "3",
  "--num-requests",
  "40",
  "--rate",
  "20",
];

async function report(extra: string[]): Promise<string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pd-report-"));
  const file = path.join(dir, "r.html");
  const r = await cli([...BASE, ...extra, "--report", file]);
  assert.equal(r.code, 0, r.stderr.join("\n"));
  return fs.readFileSync(file, "utf8");
}

test("a PD run report shows the pools and the KV transfer distribution", async () => {
  const html = await report([
    "--prefill-instances",
    "1",
    "--decode-instances",
    "1",
    "--prefill-decode-instances",
    "1",
    "--pd-decider",
    "always",
  ]);
  assert.ok(html.includes('id="pd"'));
  for (const pool of [">prefill<", ">decode<", ">prefill-decode (shared)<"]) assert.ok(html.includes(pool), pool);
  assert.ok(html.includes("pd-transfer-cdf") && html.includes("pd-transfer-hist"));
  assert.ok(html.includes("KV transfer durations"));
});

test("a co-located run report has no PD section", async () => {
  const html = await report([]);
  assert.ok(!html.includes('id="pd"'));
  assert.ok(!html.includes("pd-transfer-cdf"));
});
