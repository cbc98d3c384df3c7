// `blis sweep --shard I/N` and `blis sweep merge`: the shards' runs merged give the unsharded
// sweep's tables byte for byte; shard and merge mistakes are one-line errors.

import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Blis, recordedKeys, sweepFiles, writePlan } from "./helpers.js";

test("three shards merged equal the unsharded sweep; a missing shard is reported", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "blis-shard-"));
  const plan = writePlan(dir, "  determinism: true\n");
  const local = new Blis(["sweep", plan, "--out", path.join(dir, "local"), "--jobs", "2", "--no-progress"]);
  const shards = [0, 1, 2].map(
    (i) =>
      new Blis([
        "sweep",
        plan,
        "--out",
        path.join(dir, `shard-${i}`),
        "--shard",
        `${i}/3`,
        "--jobs",
        "1",
        "--no-progress",
      ]),
  );
  assert.equal(await local.exited, 0, local.stderr);
  for (const s of shards) {
    assert.equal(await s.exited, 0, s.stderr);
    assert.equal(s.stdout, "");
    assert.match(
      s.stderr,
      /sweep: shard \d\/3: 4 runs in .*; combine the shards with: blis sweep merge --out DIR SHARD_DIR\.\.\./,
    );
  }
  // Each (configuration, seed) pair with its determinism repetition is in exactly one shard.
  const perShard = [0, 1, 2].map((i) => recordedKeys(path.join(dir, `shard-${i}`)));
  assert.deepEqual(
    perShard.map((k) => k.length),
    [4, 4, 4],
  );
  assert.equal(new Set(perShard.flat()).size, 12);

  const partial = new Blis([
    "sweep",
    "merge",
    "--out",
    path.join(dir, "partial"),
    path.join(dir, "shard-0"),
    path.join(dir, "shard-2"),
  ]);
  assert.equal(await partial.exited, 1);
  assert.match(
    partial.stderr,
    /^error: sweep merge: 4 of 12 runs are in none of the shard directories; merge the missing shards, or run them with: blis sweep /m,
  );

  const merged = path.join(dir, "merged");
  const merge = new Blis(["sweep", "merge", "--out", merged, ...[0, 1, 2].map((i) => path.join(dir, `shard-${i}`))]);
  assert.equal(await merge.exited, 0, merge.stderr);
  assert.match(merge.stderr, /sweep merge: 12 runs taken from 3 directories, 0 already in .*, 0 of 12 missing/);
  assert.equal(merge.stdout, local.stdout);
  assert.deepEqual(sweepFiles(merged), sweepFiles(path.join(dir, "local")));
  assert.equal(recordedKeys(merged).length, 12);

  // Merging again takes nothing twice.
  const again = new Blis(["sweep", "merge", "--out", merged, path.join(dir, "shard-1")]);
  assert.equal(await again.exited, 0, again.stderr);
  assert.match(again.stderr, /sweep merge: 0 runs taken from 1 directory, 12 already in/);
  assert.equal(recordedKeys(merged).length, 12);
  fs.rmSync(dir, { recursive: true, force: true });
});

test("shard and merge mistakes are one-line errors with exit status 1", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "blis-shard-"));
  const plan = writePlan(dir);
  const other = path.join(dir, "other.yaml");
  fs.writeFileSync(other, fs.readFileSync(plan, "utf8").replace("seeds: [1, 2, 3]", "seeds: [1, 2]"));
  const out = path.join(dir, "out");
  const cases: [string[], RegExp][] = [
    [["sweep", plan, "--out", out, "--shard", "3/3"], /^error: --shard "3\/3": I must be between 0 and 2$/],
    [["sweep", plan, "--out", out, "--shard", "0/0"], /^error: --shard "0\/0": N must be at least 1$/],
    [
      ["sweep", plan, "--out", out, "--shard", "1"],
      /^error: --shard "1": expected I\/N, the 0-based slice I of N \(e\.g\. 0\/4\)$/,
    ],
    [["sweep", plan, "--shard", "0/2"], /^error: --shard needs --out DIR/],
    [["sweep", "merge", "--out", out, path.join(dir, "nope")], /^error: sweep merge: .*nope: no such directory$/],
    [
      ["sweep", "merge", "--out", out, dir],
      /^error: .*: not the output directory of a sweep \(no readable plan\.json\)$/,
    ],
  ];
  // All at once: each is a process start-up, and none writes anything.
  const runs = cases.map(([args]) => new Blis(args));
  for (const [i, [args, re]] of cases.entries()) {
    const r = runs[i]!;
    assert.equal(await r.exited, 1, `${args.join(" ")}: ${r.stderr}`);
    const lines = r.stderr.trim().split("\n");
    assert.equal(lines.length, 1, r.stderr);
    assert.match(lines[0]!, re);
    assert.ok(!fs.existsSync(out), "nothing written");
  }
  // Shards of two different plans do not merge.
  const a = new Blis(["sweep", plan, "--out", path.join(dir, "a"), "--shard", "0/6", "--jobs", "1", "--no-progress"]);
  const b = new Blis(["sweep", other, "--out", path.join(dir, "b"), "--shard", "0/6", "--jobs", "1", "--no-progress"]);
  assert.equal(await a.exited, 0, a.stderr);
  assert.equal(await b.exited, 0, b.stderr);
  const mixed = new Blis(["sweep", "merge", "--out", out, path.join(dir, "a"), path.join(dir, "b")]);
  assert.equal(await mixed.exited, 1);
  assert.match(
    mixed.stderr.trim(),
    /^error: .*b\/plan\.json: its runs come from another plan than .*plan\.yaml; merge only shards of one plan$/,
  );
  assert.ok(!fs.existsSync(out), "nothing written");
  fs.rmSync(dir, { recursive: true, force: true });
});
