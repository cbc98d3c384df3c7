import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { blis, MODEL, readLines, ROOT, tmpDir, writePlan } from "./helpers.js";

const PLUGIN = path.join(ROOT, "examples/plugins/least-kv-scorer.mjs");

test("plugins load inside sweep workers; each run's stdout equals `blis run` with the same flags", () => {
  const dir = tmpDir("plugin-sweep");
  const plan = writePlan(
    dir,
    "plan.yaml",
    `name: plugin-sweep
seeds: [3, 4]
base:
  flags:
    model: ${MODEL}
    num-requests: 80
    rate: 400
    num-instances: 3
    routing-policy: weighted
    plugin: ${PLUGIN}
    log: error
axes:
  - name: scorers
    flag: routing-scorers
    values: ["free-kv:1", "free-kv:2,queue-depth:1", "queue-depth:1"]
metrics: [ttft_p99, completed]
checks:
  conservation: true
`,
  );
  const out = path.join(dir, "out");
  const r = blis(["sweep", plan, "--out", out, "--jobs", "2", "--no-progress"]);
  assert.equal(r.code, 0, r.stderr);
  const recs = readLines(path.join(out, "runs.jsonl")).map(
    (l) => JSON.parse(l) as { config: string; seed: number; status: string; stdout: string },
  );
  assert.equal(recs.length, 6);
  for (const rec of recs) assert.equal(rec.status, "ok", `${rec.config} seed ${rec.seed}`);
  const direct = blis([
    "run",
    "--model",
    MODEL,
    "--num-requests",
    "80",
    "--rate",
    "400",
    "--num-instances",
    "3",
    "--routing-policy",
    "weighted",
    "--plugin",
    PLUGIN,
    "--routing-scorers",
    "free-kv:2,queue-depth:1",
    "--seed",
    "4",
    "--log",
    "error",
  ]);
  assert.equal(direct.code, 0, direct.stderr);
  const rec = recs.find((x) => x.config === "scorers=free-kv:2,queue-depth:1" && x.seed === 4);
  assert.ok(rec, recs.map((x) => x.config).join(", "));
  assert.equal(rec.stdout, direct.stdout);
  // The plugin scorer changes routing: its runs differ from queue-depth alone.
  const qd = recs.find((x) => x.config === "scorers=queue-depth:1" && x.seed === 4)!;
  const kv = recs.find((x) => x.config === "scorers=free-kv:1" && x.seed === 4)!;
  assert.notEqual(kv.stdout, qd.stdout);
  assert.ok(fs.existsSync(path.join(out, "tables.md")));
});
