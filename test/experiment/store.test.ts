import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { planFromCells, planHashes } from "../../src/experiment/index.js";
import { OutDir, type RunRecord } from "../../src/experiment/store.js";
import { MODEL, tmpDir } from "./helpers.js";

function rec(seed: number): RunRecord {
  return {
    v: 1,
    config: "a",
    config_index: 0,
    seed,
    rep: 0,
    status: "ok",
    error: "",
    timeout_s: 300,
    wall_s: 0,
    stdout: "x\n",
    stderr: [],
    metrics: null,
  };
}

test("runs.jsonl: a torn last line is cut off, an unreadable middle line is skipped", () => {
  const dir = tmpDir("store");
  const plan = planFromCells([{ label: "a", input: { model: MODEL } }], { seeds: [1, 2, 3, 4] });
  const { out } = OutDir.open(dir, plan, planHashes(plan), false);
  out.append(rec(1));
  out.close();
  const file = path.join(dir, "runs.jsonl");
  fs.appendFileSync(file, "{not json}\n" + JSON.stringify(rec(2)) + "\n" + JSON.stringify(rec(3)).slice(0, 40));
  const { out: again } = OutDir.open(dir, plan, planHashes(plan), false);
  assert.deepEqual(
    again.loadRecords().map((r) => r.seed),
    [1, 2],
  );
  assert.ok(fs.readFileSync(file, "utf8").endsWith(JSON.stringify(rec(2)) + "\n"), "the torn tail is gone");
  again.append(rec(4));
  again.close();
  const { out: third } = OutDir.open(dir, plan, planHashes(plan), false);
  assert.deepEqual(
    third.loadRecords().map((r) => r.seed),
    [1, 2, 4],
  );
  third.close();
});

test("a run file cut short by a killed sweep is written again on resume; a complete one is kept", () => {
  const dir = tmpDir("store-files");
  const plan = planFromCells([{ label: "a", input: { model: MODEL } }], { seeds: [1, 2] });
  const { out } = OutDir.open(dir, plan, planHashes(plan), false);
  const config = plan.configs[0]!;
  const one = { ...rec(1), stdout: "the run's output\n", error: "error: e" };
  out.writeRunFiles(config, one);
  out.writeRunFiles(config, rec(2));
  const file = (name: string): string => path.join(dir, config.dir, name);
  // Killed after the record was logged, while its files were written: created but not filled.
  fs.writeFileSync(file("1.txt"), "");
  fs.writeFileSync(file("1.stderr.txt"), "err");
  // Same length as the record's output: a finished write, which a resume leaves alone.
  fs.writeFileSync(file("2.txt"), "y\n");
  out.writeRunFiles(config, one, true);
  out.writeRunFiles(config, rec(2), true);
  assert.equal(fs.readFileSync(file("1.txt"), "utf8"), "the run's output\n");
  assert.equal(fs.readFileSync(file("1.stderr.txt"), "utf8"), "error: e\n");
  assert.equal(fs.readFileSync(file("2.txt"), "utf8"), "y\n");
  out.close();
});
