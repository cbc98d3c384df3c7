// `blis saturation` probes stop when their arrivals stop: a load far below capacity reads STABLE on
// every detector with next to nothing left over, a load far above it reads OVERLOADED with the
// backlog in the queued and running columns (docs/saturation.md "Finding the saturation rate").
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { cli } from "../helpers/cli.js";
import { probeInput, PROBE_WINDOWS } from "../../src/experiment/saturationSearch.js";

const MODEL = "meta-llama/llama-3.1-8b-instruct";

test(
  "probes below capacity are STABLE, far above it OVERLOADED with requests still queued and running",
  { timeout: 180_000 },
  async () => {
    const csv = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "blis-satprobe-")), "probes.csv");
    // One round of the whole ladder 4, 8, …, 64 (the default model saturates near 21 req/s).
    const args = ["saturation", "--model", MODEL, "--requests", "1500", "--min-rate", "4", "--max-rate", "64"];
    const run = await cli([...args, "--probes-per-round", "5", "--precision", "0.9", "--jobs", "2", "--out", csv]);
    assert.equal(run.code, 0, run.stderr.join("\n"));
    const [head, ...lines] = fs.readFileSync(csv, "utf8").trim().split("\n");
    const cols = head!.split(",");
    const rows = new Map(
      lines.map((l) => [Number(l.split(",")[0]), Object.fromEntries(l.split(",").map((v, i) => [cols[i]!, v]))]),
    );
    for (const rate of [4, 8]) {
      const r = rows.get(rate)!;
      for (const d of ["composite", "threshold", "backlog-drift"])
        assert.equal(r[d], "STABLE", `${d} at ${rate} req/s: ${JSON.stringify(r)}`);
      assert.equal(r["still_queued"], "0", `nothing waits at ${rate} req/s`);
      assert.equal(r["saturated"], "false");
    }
    const over = rows.get(64)!;
    for (const d of ["composite", "threshold", "backlog-drift"])
      assert.equal(over[d], "OVERLOADED", `${d} at 64 req/s: ${JSON.stringify(over)}`);
    // 1500 arrivals in 23 s against ~21 completions/s: hundreds left waiting, a full batch running.
    assert.ok(Number(over["still_queued"]) > 500, `queued at 64 req/s: ${over["still_queued"]}`);
    assert.ok(Number(over["still_running"]) > 100, `running at 64 req/s: ${over["still_running"]}`);
    assert.ok(Number(over["responses_per_sec"]) < 30, `throughput, not the offered rate: ${over["responses_per_sec"]}`);
    assert.match(run.stdout, /^64 .* OVERLOADED +yes$/m);
  },
);

test("a probe stops when its arrivals stop, or at the configuration's own shorter horizon", () => {
  const p = probeInput({ model: MODEL }, 8, 1000);
  assert.equal(p.horizon, 125_000_000);
  assert.deepEqual(p.saturationProbe, { windowSec: 125 / PROBE_WINDOWS });
  assert.equal(probeInput({ model: MODEL, horizon: 50_000_000 }, 8, 1000).horizon, 50_000_000);
});
