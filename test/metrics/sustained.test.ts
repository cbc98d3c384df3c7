// Sustained throughput (docs/behavior.md "Sustained throughput"): a run that keeps up with its
// offered rate reads that rate, where responses_per_sec, diluted by the drain, reads less; the BLIS
// blocks on stdout do not change; reports and sweep tables show it before responses_per_sec.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { cli, clusterBlock } from "../helpers/cli.js";

const MODEL = "meta-llama/llama-3.1-8b-instruct";

test(
  "200 req/s offered to 16 instances: sustained ≈ 200, responses_per_sec lower; stdout unchanged",
  { timeout: 120_000 },
  async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "blis-sustained-"));
    const args = ["run", "--model", MODEL, "--rate", "200", "--num-requests", "10000", "--num-instances", "16"];
    const withReport = await cli([...args, "--report", path.join(dir, "r.html")]);
    assert.equal(withReport.code, 0, withReport.stderr.join("\n"));
    const data = JSON.parse(fs.readFileSync(path.join(dir, "r.json"), "utf8")) as {
      metrics: { sustainedResponsesPerSec: number; cluster: { responses_per_sec: number } };
    };
    const sustained = data.metrics.sustainedResponsesPerSec;
    const whole = data.metrics.cluster.responses_per_sec;
    assert.ok(Math.abs(sustained - 200) / 200 < 0.03, `sustained ${sustained} req/s`);
    assert.ok(whole < 0.9 * sustained, `responses_per_sec ${whole} against sustained ${sustained}`);
    // The printed block is BLIS's: same bytes with or without the report, no new key.
    const plain = await cli(args);
    assert.equal(withReport.stdout, plain.stdout);
    assert.equal(clusterBlock(plain.stdout)["responses_per_sec"], whole);
    assert.doesNotMatch(plain.stdout, /sustained/);
    // The report's cards: sustained first, then the whole-run figure.
    const labels = [
      ...fs.readFileSync(path.join(dir, "r.html"), "utf8").matchAll(/<div class="k">([^<]*)<\/div>/g),
    ].map((m) => m[1]);
    const at = labels.indexOf("sustained throughput");
    assert.ok(at >= 0 && labels[at + 1] === "throughput (whole run)", labels.slice(0, 5).join(" | "));
  },
);

test("a sweep tabulates sustained_throughput by default, before throughput", { timeout: 120_000 }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "blis-sustained-sweep-"));
  const plan = path.join(dir, "plan.yaml");
  fs.writeFileSync(
    plan,
    `name: sustained\nseeds: [1]\nbase:\n  flags:\n    model: ${MODEL}\n    num-requests: 2000\n` +
      "axes:\n  - name: rate\n    flag: rate\n    values: [5, 40]\n",
  );
  const r = await cli(["sweep", plan, "--out", path.join(dir, "out"), "--jobs", "1"]);
  assert.equal(r.code, 0, r.stderr.join("\n"));
  const rows = fs.readFileSync(path.join(dir, "out", "tables.txt"), "utf8").split("\n");
  const header = rows.find((l) => l.startsWith("config ") && l.includes("sustained_throughput"))!;
  assert.ok(header.indexOf("sustained_throughput") < header.indexOf(" throughput"), header);
  const cells = (label: string): string[] =>
    rows
      .find((l) => l.startsWith(`${label} `))!
      .trim()
      .split(/\s+/);
  const cols = header.trim().split(/\s+/);
  const low = cells("rate=5");
  const sustained5 = Number(low[cols.indexOf("sustained_throughput")]);
  assert.ok(Math.abs(sustained5 - 5) / 5 < 0.05, `sustained at 5 req/s: ${sustained5}`);
  // Past capacity (about 21 req/s) both read the capacity, not the offered 40.
  const high = cells("rate=40");
  assert.ok(Number(high[cols.indexOf("sustained_throughput")]) < 25, high.join(" "));
});
