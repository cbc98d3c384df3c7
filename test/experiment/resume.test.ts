import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { BIN, blis, blisAsync, MODEL, readLines, ROOT, tmpDir, writePlan } from "./helpers.js";

const PLAN = `name: resume
seeds: [11, 12, 13, 14]
timeout_s: 120
base:
  flags:
    model: ${MODEL}
    num-requests: 150
    rate: 300
    log: error
axes:
  - name: instances
    flag: num-instances
    values: [1, 2, 3]
baseline: instances=1
checks:
  monotonic: {axis: instances, metric: ttft_mean, direction: decreasing}
`;

const TABLES = ["tables.md", "tables.txt", "tables.csv", "summary.json"];

function tableFiles(dir: string): Map<string, string> {
  const m = new Map<string, string>();
  for (const f of TABLES) m.set(f, fs.readFileSync(path.join(dir, f), "utf8"));
  for (const f of fs.readdirSync(path.join(dir, "csv")).sort())
    m.set(`csv/${f}`, fs.readFileSync(path.join(dir, "csv", f), "utf8"));
  return m;
}

test("SIGKILL halfway loses no finished run; the resumed sweep ends with identical tables", async () => {
  const dir = tmpDir("resume");
  const plan = writePlan(dir, "plan.yaml", PLAN);
  const killed = path.join(dir, "killed");
  const whole = path.join(dir, "whole");
  const total = 12;

  // Uninterrupted reference (in parallel with the interrupted one).
  const ref = blisAsync(["sweep", plan, "--out", whole, "--jobs", "1"]);

  const child = spawn(process.execPath, [BIN, "sweep", plan, "--out", killed, "--jobs", "1"], {
    cwd: ROOT,
    stdio: "ignore",
  });
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  const runs = path.join(killed, "runs.jsonl");
  const t0 = Date.now();
  while (readLines(runs).length < 3) {
    if (Date.now() - t0 > 60_000) throw new Error("no runs finished within 60 s");
    await new Promise((r) => setTimeout(r, 5));
  }
  child.kill("SIGKILL");
  await exited;
  const before = readLines(runs);
  assert.ok(before.length >= 3 && before.length < total, `killed after ${before.length} of ${total} runs`);
  for (const l of before) JSON.parse(l); // every stored line is complete
  assert.ok(!fs.existsSync(path.join(killed, "summary.json")), "the killed sweep did not get to the tables");

  const resumed = blis(["sweep", plan, "--out", killed, "--jobs", "1"]);
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.match(resumed.stderr, new RegExp(`${before.length} already finished, ${total - before.length} to run`));
  const after = readLines(runs);
  assert.equal(after.length, total);
  assert.deepEqual(after.slice(0, before.length), before, "finished runs are kept, not rerun");

  const r = await ref;
  assert.equal(r.code, 0, r.stderr);
  assert.equal(resumed.stdout, r.stdout);
  const a = tableFiles(killed);
  const b = tableFiles(whole);
  assert.deepEqual([...a.keys()], [...b.keys()]);
  for (const [f, text] of a) assert.equal(text, b.get(f), `${f} differs`);

  // A changed plan is refused (one line, exit 2) unless --restart.
  const changed = writePlan(dir, "plan.yaml", PLAN.replace("seeds: [11, 12, 13, 14]", "seeds: [11, 12, 13]"));
  const refused = blis(["sweep", changed, "--out", killed]);
  assert.equal(refused.code, 2);
  const lines = refused.stderr.split("\n").filter((l) => l !== "");
  assert.equal(lines.length, 1, refused.stderr);
  assert.match(lines[0]!, /plan\.json: the plan changed since the runs in this directory .*--restart/);
  assert.equal(readLines(runs).length, total, "nothing was touched");

  const restarted = blis(["sweep", changed, "--out", killed, "--restart", "--jobs", "2"]);
  assert.equal(restarted.code, 0, restarted.stderr);
  assert.match(restarted.stderr, /--restart: removed the previous results/);
  assert.equal(readLines(runs).length, 9);
});
