// The worked examples of docs/extending.md: a scorer and a latency backend, each with a parameter,
// each one file under test/fixtures/extending/ plus one registry line, used through `blis run`.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { scorers } from "../../src/cluster/scorers/scorer.js";
import { latencyBackends } from "../../src/latency/backends/backend.js";
import "../../src/latency/backends/builtins.js";
import { lowIndex } from "../fixtures/extending/lowIndexScorer.js";
import { perTokenBackend } from "../fixtures/extending/perTokenLatency.js";
import { cli, metricBlocks } from "../helpers/cli.js";

// The registry lines.
scorers.register(lowIndex);
latencyBackends.register(perTokenBackend);

const BASE = ["run", "--model", "qwen/qwen3-14b", "--num-requests", "60", "--rate", "40", "--num-instances", "3"];
const WEIGHTED = [...BASE, "--routing-policy", "weighted", "--routing-scorers", "low-index:3,queue-depth:1"];

/** Completed requests per instance, in index order (an instance that served nothing prints no block). */
function perInstance(stdout: string): number[] {
  const blocks = metricBlocks(stdout);
  return [0, 1, 2].map((i) =>
    Number(blocks.find((b) => b["instance_id"] === `instance_${i}`)?.["completed_requests"] ?? 0),
  );
}

test("the new scorer's parameter flag changes routing decisions", async () => {
  const flat = await cli([...WEIGHTED, "--low-index-decay", "0"]);
  const steep = await cli([...WEIGHTED, "--low-index-decay", "5"]);
  assert.equal(flat.code, 0, flat.stderr.join("\n"));
  assert.equal(steep.code, 0, steep.stderr.join("\n"));
  const [f0, f1, f2] = perInstance(flat.stdout) as [number, number, number];
  const [s0, s1, s2] = perInstance(steep.stdout) as [number, number, number];
  assert.ok(Math.max(f0, f1, f2) - Math.min(f0, f1, f2) <= 4, `decay 0 balances by queue depth: ${[f0, f1, f2]}`);
  assert.ok(s0 > f0 && s0 > s1 + s2, `decay 5 piles onto instance_0: ${[s0, s1, s2]}`);
});

test("the parameter's bundle key works, and an explicit flag wins over it", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "blis-extending-"));
  const bundle = path.join(dir, "policy.yaml");
  fs.writeFileSync(
    bundle,
    "routing:\n  policy: weighted\n  low_index_decay: 5\n  scorers:\n    - name: low-index\n      weight: 3\n    - name: queue-depth\n      weight: 1\n",
  );
  const viaBundle = await cli([...BASE, "--policy-config", bundle]);
  const viaFlag = await cli([...WEIGHTED, "--low-index-decay", "5"]);
  assert.equal(viaBundle.code, 0, viaBundle.stderr.join("\n"));
  assert.deepEqual(perInstance(viaBundle.stdout), perInstance(viaFlag.stdout));
  const overridden = await cli([...BASE, "--policy-config", bundle, "--low-index-decay", "0"]);
  const flat = await cli([...WEIGHTED, "--low-index-decay", "0"]);
  assert.deepEqual(perInstance(overridden.stdout), perInstance(flat.stdout));
});

test("the descriptor validates its parameter and --help lists its flag with the schema default", async () => {
  const bad = await cli([...WEIGHTED, "--low-index-decay", "-1"]);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr.join("\n"), /--low-index-decay must be a finite value >= 0, got -1/);
  const help = await cli(["run", "--help"]);
  assert.match(
    help.stdout,
    /--low-index-decay <float>\s+low-index scorer: score decay per instance index \(default 1\)/,
  );
  const unknown = await cli([...BASE, "--routing-policy", "weighted", "--routing-scorers", "nope:1"]);
  assert.match(unknown.stderr.join("\n"), /valid: .*low-index/);
});

test("a new latency backend is selected by --latency-model and its parameter flag sets step times", async () => {
  const byDefault = await cli([...BASE, "--latency-model", "per-token"]);
  const fast = await cli([...BASE, "--latency-model", "per-token", "--per-token-ticks", "2"]);
  const slow = await cli([...BASE, "--latency-model", "per-token", "--per-token-ticks", "20"]);
  for (const r of [byDefault, fast, slow]) assert.equal(r.code, 0, r.stderr.join("\n"));
  assert.equal(byDefault.stdout, fast.stdout);
  const e2e = (out: string) => Number(metricBlocks(out).find((b) => b["instance_id"] === "cluster")!["e2e_mean_ms"]);
  assert.ok(e2e(slow.stdout) > 1.3 * e2e(fast.stdout), `${e2e(fast.stdout)} vs ${e2e(slow.stdout)}`);
});

test("--help lists the backend's parameter flag with the schema default, and resolve checks its value", async () => {
  const help = await cli(["run", "--help"]);
  assert.match(help.stdout, /--per-token-ticks <int>\s+per-token backend: ticks per batched token \(default 2\)/);
  assert.match(help.stdout, /--latency-model <string>/);
  const bad = await cli([...BASE, "--latency-model", "per-token", "--per-token-ticks", "-1"]);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr.join("\n"), /--per-token-ticks must be >= 0, got -1/);
  const unknown = await cli([...BASE, "--latency-model", "nope"]);
  assert.match(unknown.stderr.join("\n"), /valid options: .*per-token/);
});
