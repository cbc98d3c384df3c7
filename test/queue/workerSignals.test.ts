// `blis worker` stopped by a signal to its whole process group (Ctrl-C in a terminal, SIGTERM from
// a process manager) while a run is in progress: the pool child gets the signal too, yet the run
// finishes (or goes back to the queue), the worker exits 0 without a stack trace and leaves no
// process behind. A SIGKILLed worker takes its pool child with it.

import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { BIN, Blis, killAll, recordedKeys, sleep, startRedis, writePlan, type RedisServer } from "./helpers.js";

let redis: RedisServer;
let dir: string;
let plan: string;

before(async () => {
  redis = await startRedis();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "blis-queue-signals-"));
  plan = writePlan(dir);
});

after(async () => {
  await killAll();
  await redis.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Live (not zombie) processes of the process group. */
function live(pgid: number): string[] {
  const r = spawnSync("ps", ["-o", "pid=,stat=", "-g", String(pgid)], { encoding: "utf8" });
  return r.stdout
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "" && !/\sZ/.test(l));
}

async function until(cond: () => boolean, ms: number): Promise<boolean> {
  const t0 = Date.now();
  while (Date.now() - t0 < ms) {
    if (cond()) return true;
    await sleep(50);
  }
  return cond();
}

/** A worker leading its own process group, as a terminal or a process manager starts it. */
function groupWorker(url: string): {
  pgid: number;
  stderr: () => string;
  exited: Promise<[number | null, string | null]>;
} {
  const child = spawn(process.execPath, [BIN, "worker", "--queue", url, "--concurrency", "1", "--stall-timeout", "1"], {
    detached: true,
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<[number | null, string | null]>((r) => child.once("close", (code, sig) => r([code, sig])));
  return { pgid: child.pid!, stderr: () => stderr, exited };
}

for (const [i, signal] of (["SIGTERM", "SIGINT"] as const).entries()) {
  test(`${signal} to the worker's process group mid-run: exit 0, no stack trace, no failed run, nothing left running`, async () => {
    const url = `${redis.url}/${10 + i}`;
    const out = path.join(dir, `signal-${signal}`);
    const sweep = new Blis(["sweep", plan, "--out", out, "--queue", url, "--no-progress"]);
    const w = groupWorker(url);
    // After its first run the worker is inside the next one.
    assert.ok(await until(() => /^worker: \[.*\] ok in /m.test(w.stderr()), 60_000), w.stderr());
    await sleep(100);
    process.kill(-w.pgid, signal);
    const [code, sig] = await w.exited;
    assert.equal(code, 0, `${sig} ${w.stderr()}`);
    assert.doesNotMatch(w.stderr(), /Unhandled|exited unexpectedly|^\s+at /m);
    assert.match(w.stderr(), /worker: stopped after \d+ runs/);
    assert.ok(await until(() => live(w.pgid).length === 0, 5000), `still running: ${live(w.pgid).join(", ")}`);
    // Another worker finishes the sweep: every run ok, none recorded twice.
    const rest = new Blis(["worker", "--queue", url, "--concurrency", "1"]);
    assert.equal(await sweep.exited, 0, sweep.stderr);
    const records = fs
      .readFileSync(path.join(out, "runs.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { status: string });
    assert.deepEqual(
      records.map((r) => r.status),
      records.map(() => "ok"),
    );
    assert.equal(new Set(recordedKeys(out)).size, 6);
    assert.equal(await rest.stop(), 0, rest.stderr);
  });
}

test("SIGKILL of a worker mid-run: its pool child ends too", async () => {
  const url = `${redis.url}/12`;
  const sweep = new Blis(["sweep", plan, "--queue", url, "--no-progress"]);
  const w = groupWorker(url);
  assert.ok(await until(() => /^worker: \[.*\] ok in /m.test(w.stderr()), 60_000), w.stderr());
  assert.ok(live(w.pgid).length >= 2, "the pool child runs");
  process.kill(w.pgid, "SIGKILL");
  await w.exited;
  assert.ok(await until(() => live(w.pgid).length === 0, 5000), `still running: ${live(w.pgid).join(", ")}`);
  sweep.proc.kill("SIGKILL");
});
