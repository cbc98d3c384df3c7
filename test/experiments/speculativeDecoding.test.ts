// A reduced run of examples/experiments/speculative-decoding.yaml, checking what the study shows:
// speculation wins at low load and loses at high load, and larger k loses first.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { parse } from "yaml";
import { cli, clusterBlock } from "../helpers/cli.js";

const PLAN = path.resolve(
  import.meta.dirname,
  "..",
  "..",
  "..",
  "examples",
  "experiments",
  "speculative-decoding.yaml",
);

interface Plan {
  base: { flags: Record<string, string | number | boolean> };
  variants: { name: string; flags: Record<string, string | number | boolean> }[];
}

const plan = parse(fs.readFileSync(PLAN, "utf8")) as Plan;

/** Responses per second of one variant at one concurrency. */
async function throughput(name: string, concurrency: number): Promise<number> {
  const variant = plan.variants.find((v) => v.name === name);
  assert.ok(variant, `no variant ${name} in the plan`);
  const flags = { ...plan.base.flags, ...variant.flags, concurrency, seed: 7 };
  const r = await cli(["run", ...Object.entries(flags).flatMap(([k, v]) => [`--${k}`, String(v)])]);
  assert.equal(r.code, 0, r.stderr.join("\n"));
  const c = clusterBlock(r.stdout);
  assert.equal(c["completed_requests"], plan.base.flags["num-requests"]);
  return c["responses_per_sec"] as number;
}

test("speculative-decoding: speculation wins at low load and loses at high load", async () => {
  const low = { off: await throughput("off", 1), k3: await throughput("k3", 1) };
  assert.ok(low.k3 > 1.5 * low.off, `concurrency 1: ${low.k3} with k=3 vs ${low.off} without`);
  const high = { off: await throughput("off", 256), k3: await throughput("k3", 256), k5: await throughput("k5", 256) };
  assert.ok(high.k3 < high.off, `concurrency 256: ${high.k3} with k=3 vs ${high.off} without`);
  assert.ok(high.k5 < high.k3, `concurrency 256: k=5 (${high.k5}) loses more than k=3 (${high.k3})`);
});
