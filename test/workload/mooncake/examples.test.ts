// examples/traces/: the generator script remakes the committed trace byte for byte, and both
// example specs run (docs/traces.md "Examples").
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { simulate } from "../../../src/sim/simulate.js";
import { silentLogger } from "../../../src/util/log.js";
import { loadWorkloadSpec } from "../../../src/workload/index.js";
import { loadMooncakeTrace } from "../../../src/workload/mooncake/workload.js";

const ROOT = fileURLToPath(new URL("../../../../", import.meta.url));
const DIR = path.join(ROOT, "examples/traces");

test("generate.mjs remakes agentic.jsonl exactly", () => {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), "blis-traces-"));
  const r = spawnSync(process.execPath, [path.join(DIR, "generate.mjs"), out], { encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(
    fs.readFileSync(path.join(out, "agentic.jsonl"), "utf8"),
    fs.readFileSync(path.join(DIR, "agentic.jsonl"), "utf8"),
  );
  fs.rmSync(out, { recursive: true, force: true });
});

test("the agentic trace: growing sessions behind one system prompt, with tool-call bursts", () => {
  const t = loadMooncakeTrace(path.join(DIR, "agentic.jsonl"));
  const bySession = new Map<string, number[]>();
  for (let i = 0; i < t.count; i++) {
    assert.deepEqual(
      [...t.ids.subarray(t.idStart[i]!, t.idStart[i]! + 6)],
      [0, 1, 2, 3, 4, 5],
      "the shared system prompt",
    );
    const s = t.session![i]!;
    if (!bySession.has(s)) bySession.set(s, []);
    bySession.get(s)!.push(i);
  }
  assert.equal(bySession.size, 40);
  let bursts = 0;
  for (const rows of bySession.values()) {
    for (let j = 1; j < rows.length; j++) {
      const [a, b] = [rows[j - 1]!, rows[j]!];
      assert.ok(
        t.inputLen[b]! > t.inputLen[a]! + t.outputLen[a]!,
        "each turn's context holds the previous turn and its answer",
      );
      if (t.timestampMs[b]! - t.timestampMs[a]! < 2000) bursts++;
    }
  }
  assert.ok(bursts > 50, `${bursts} requests follow the previous one of their session within 2 s`);
});

for (const name of ["agentic.yaml", "agentic-closed-loop.yaml"]) {
  test(`example ${name} runs every request of the trace`, async () => {
    const spec = loadWorkloadSpec(path.join(DIR, name));
    spec.mooncake_trace!.path = path.join(ROOT, spec.mooncake_trace!.path);
    const res = await simulate(
      { model: "meta-llama/llama-3.1-8b-instruct", workloadSpecObject: spec, numInstances: 2 },
      { logger: silentLogger },
    );
    assert.equal(res.metrics.cluster.completed_requests, 618);
  });
}
