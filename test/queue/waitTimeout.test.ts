// `blis sweep --queue` with no worker: it says that it waits for workers (stderr), and with
// --wait-timeout gives up with one line naming the queue, exit 1, nothing printed or tabulated,
// and no run left on the queue for a worker that comes later.

import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Blis, killAll, sleep, startRedis, worker, writePlan, type RedisServer } from "./helpers.js";

let redis: RedisServer;
let dir: string;
let plan: string;

before(async () => {
  redis = await startRedis();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "blis-queue-wait-"));
  plan = writePlan(dir);
});

after(async () => {
  await killAll();
  await redis.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

test("no worker and --wait-timeout: one line naming the queue, exit 1, no tables, no run left queued", async () => {
  const url = `${redis.url}/5`;
  const out = path.join(dir, "timed-out");
  const t0 = performance.now();
  const sweep = new Blis(["sweep", plan, "--out", out, "--queue", url, "--wait-timeout", "2", "--no-progress"]);
  assert.equal(await sweep.exited, 1, sweep.stderr);
  const s = (performance.now() - t0) / 1000;
  assert.ok(s >= 2 && s < 15, `gave up after ${s} s`);
  assert.equal(sweep.stdout, "");
  const lines = sweep.stderr.trimEnd().split("\n");
  assert.match(lines[0]!, new RegExp(`^waiting for workers on ${url} \\(0 connected`));
  const errors = lines.filter((l) => l.startsWith("error:"));
  assert.deepEqual(errors, [
    `error: --wait-timeout 2: no worker connected to the queue ${url} in 2 s (start one with: blis worker --queue ${url})`,
  ]);
  assert.ok(!fs.existsSync(path.join(out, "summary.json")) && !fs.existsSync(path.join(out, "tables.md")));
  // A worker that comes now finds nothing to run.
  const late = worker(url);
  await late.waitFor(/takes runs from/);
  await sleep(1500);
  assert.deepEqual(late.runs(), []);
  assert.equal(await late.stop(), 0, late.stderr);
});

test("no worker yet: the sweep says it waits, then finishes once a worker connects", async () => {
  const url = `${redis.url}/6`;
  const sweep = new Blis(["sweep", plan, "--queue", url, "--no-progress"]);
  await sweep.waitFor(new RegExp(`waiting for workers on ${url} \\(0 connected\\)`));
  const w = worker(url);
  assert.equal(await sweep.exited, 0, sweep.stderr);
  assert.match(sweep.stderr, new RegExp(`1 worker connected to ${url}`));
  assert.match(sweep.stdout, /instances/);
  assert.equal(await w.stop(), 0, w.stderr);
});

test("--wait-timeout needs --queue and a number of seconds > 0", async () => {
  const alone = new Blis(["sweep", plan, "--wait-timeout", "5"]);
  assert.equal(await alone.exited, 1);
  assert.match(alone.stderr, /--wait-timeout needs --queue/);
  for (const bad of ["0", "-3", "x"]) {
    const r = new Blis(["sweep", plan, "--queue", `${redis.url}/7`, "--wait-timeout", bad]);
    assert.equal(await r.exited, 1);
    assert.match(r.stderr, /--wait-timeout/);
    assert.equal(r.stdout, "");
  }
});

test("optimize and plan with --queue and no worker: --wait-timeout gives up with the same line, exit 1", async () => {
  const url = `${redis.url}/8`;
  const space = path.resolve(import.meta.dirname, "..", "..", "..", "examples", "optimize", "strategy.yaml");
  const runs = [
    ["optimize", space, "--out", path.join(dir, "opt"), "--queue", url, "--wait-timeout", "2", "--no-progress"],
    ["plan", "--model", "meta-llama/llama-3.1-8b-instruct", "--rate", "10", "--slo", "ttft_p99_ms=300"].concat([
      "--gpus",
      "H100",
      "--tp",
      "1",
      "--seeds",
      "1",
      "--queue",
      url,
      "--wait-timeout",
      "2",
      "--no-progress",
    ]),
  ];
  for (const argv of runs) {
    const r = new Blis(argv);
    assert.equal(await r.exited, 1, `${argv[0]}: ${r.stderr}`);
    assert.equal(r.stdout, "", argv[0]);
    const errors = r.stderr
      .trimEnd()
      .split("\n")
      .filter((l) => l.startsWith("error:"));
    assert.deepEqual(errors, [
      `error: --wait-timeout 2: no worker connected to the queue ${url} in 2 s (start one with: blis worker --queue ${url})`,
    ]);
  }
  for (const command of [
    ["optimize", space, "--out", path.join(dir, "opt2")],
    ["plan", "--model", "m", "--rate", "1", "--slo", "ttft_p99_ms=300"],
  ]) {
    const alone = new Blis([...command, "--wait-timeout", "5"]);
    assert.equal(await alone.exited, 1);
    assert.match(alone.stderr, /--wait-timeout needs --queue/);
  }
});
