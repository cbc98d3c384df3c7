import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { OptimizeDir, type EvalRecord } from "../../src/optimize/store.js";

const SPACE = { name: "s", hash: "a".repeat(64), source: null };

function rec(index: number): EvalRecord {
  return { v: 1, kind: "eval", index, source: "design", params: { x: index }, key: `[${index}]`, runs: [] };
}

test("evaluations.jsonl: a resumed search keeps its batch size; another space or a foreign directory is refused", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "blis-optimize-store-"));
  const { out, notes } = OptimizeDir.open(dir, SPACE, 2, false);
  assert.deepEqual(notes, []);
  out.append(rec(0));
  out.append(rec(1));
  out.close();

  const { out: again, notes: resumeNotes } = OptimizeDir.open(dir, SPACE, 3, false);
  assert.equal(again.batch, 2);
  assert.deepEqual(resumeNotes, [
    "resuming with the batch size the search started with (2 points per step; --jobs 3 only sets the worker processes)",
  ]);
  assert.deepEqual(
    again.load().map((r) => r.index),
    [0, 1],
  );
  again.close();

  assert.throws(
    () => OptimizeDir.open(dir, { ...SPACE, hash: "b".repeat(64) }, 2, false),
    /space\.json: the search space changed since the evaluations in this directory \(space hash aaaaaaaaaaaa → bbbbbbbbbbbb\)/,
  );
  fs.rmSync(path.join(dir, "space.json"));
  assert.throws(
    () => OptimizeDir.open(dir, SPACE, 2, false),
    /holds results that do not come from this search \(no valid space\.json\)/,
  );

  const { out: fresh, notes: restartNotes } = OptimizeDir.open(dir, SPACE, 3, true);
  assert.deepEqual(restartNotes, [`--restart: removed the previous evaluations in ${dir}`]);
  assert.equal(fresh.batch, 3);
  assert.deepEqual(fresh.load(), []);
  fresh.close();
  fs.rmSync(dir, { recursive: true, force: true });
});
