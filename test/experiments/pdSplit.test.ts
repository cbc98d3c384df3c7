// A reduced run of examples/experiments/pd-split.yaml, checking the physics the study relies on:
// splitting prefill from decode lowers the ITL tail, costs at least the KV transfer in TTFT, and a
// tenfold slower link raises TTFT by the extra transfer time.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { parse } from "yaml";
import { cli, clusterBlock } from "../helpers/cli.js";

const PLAN = path.resolve(import.meta.dirname, "..", "..", "..", "examples", "experiments", "pd-split.yaml");

interface Plan {
  base: { flags: Record<string, string | number | boolean> };
  variants: { name: string; flags: Record<string, string | number | boolean> }[];
}

const plan = parse(fs.readFileSync(PLAN, "utf8")) as Plan;

interface Outcome {
  ttftMean: number;
  itlP99: number;
  /** Mean KV transfer duration, ms (0 without PD). */
  transferMean: number;
}

async function runVariant(name: string): Promise<Outcome> {
  const variant = plan.variants.find((v) => v.name === name);
  assert.ok(variant, `no variant ${name} in the plan`);
  const flags: Record<string, string | number | boolean> = {
    ...plan.base.flags,
    ...variant.flags,
    "num-requests": 120,
    seed: 7,
  };
  const argv = ["run", ...Object.entries(flags).flatMap(([k, v]) => (v === true ? [`--${k}`] : [`--${k}`, String(v)]))];
  const r = await cli(argv);
  assert.equal(r.code, 0, r.stderr.join("\n"));
  const c = clusterBlock(r.stdout);
  assert.equal(c["completed_requests"], 120);
  const m = /KV Transfer Duration \(us\): mean=([0-9.]+)/.exec(r.stdout);
  return {
    ttftMean: c["ttft_mean_ms"] as number,
    itlP99: c["itl_p99_ms"] as number,
    transferMean: m ? Number(m[1]) / 1000 : 0,
  };
}

test("pd-split: disaggregation lowers ITL p99 and adds at least the transfer time to TTFT", async () => {
  const colocated = await runVariant("colocated");
  for (const split of ["1:3", "2:2"]) {
    const pd = await runVariant(split);
    assert.ok(pd.transferMean > 0);
    assert.ok(pd.itlP99 < colocated.itlP99, `${split}: ITL p99 ${pd.itlP99} vs co-located ${colocated.itlP99}`);
    assert.ok(
      pd.ttftMean - colocated.ttftMean >= pd.transferMean,
      `${split}: TTFT ${pd.ttftMean} vs co-located ${colocated.ttftMean}, transfer ${pd.transferMean}`,
    );
  }
});

test("pd-split: a tenfold slower link raises TTFT by the extra transfer time", async () => {
  const fast = await runVariant("2:2");
  const slow = await runVariant("2:2 slow-link");
  const extra = slow.transferMean - fast.transferMean;
  assert.ok(
    Math.abs(slow.transferMean / fast.transferMean - 10) < 0.5,
    `transfers ${fast.transferMean} → ${slow.transferMean}`,
  );
  const rise = slow.ttftMean - fast.ttftMean;
  assert.ok(rise > 0.9 * extra && rise < 1.2 * extra, `TTFT rose ${rise} ms for ${extra} ms more transfer`);
});
