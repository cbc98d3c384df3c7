// `blis sweep --queue` and `blis worker` against a real redis-server: the tables equal a local
// sweep's with two workers, with a worker SIGKILLed mid-run, and with the coordinator killed and
// restarted; no run is recorded or executed twice.

import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import net from "node:net";
import path from "node:path";
import type { RunInput } from "../../src/config/runOptions.js";
import { probeRedis } from "../../src/queue/connect.js";
import { decodeInput, encodeInput, JOB_FORMAT, KEY_PREFIX, QUEUE_NAME, type RunJobData } from "../../src/queue/jobs.js";
import { parseQueueUrl } from "../../src/queue/url.js";
import { UserError } from "../../src/util/errors.js";
import {
  Blis,
  killAll,
  recordedKeys,
  sleep,
  startRedis,
  sweepFiles,
  worker,
  writePlan,
  type RedisServer,
} from "./helpers.js";

let redis: RedisServer;
let dir: string;
let plan: string;
let local: { stdout: string; files: Record<string, string> };

before(async () => {
  redis = await startRedis();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "blis-queue-"));
  plan = writePlan(dir);
  const run = new Blis(["sweep", plan, "--out", path.join(dir, "local"), "--jobs", "2", "--no-progress"]);
  assert.equal(await run.exited, 0, run.stderr);
  local = { stdout: run.stdout, files: sweepFiles(path.join(dir, "local")) };
});

after(async () => {
  await killAll();
  await redis.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

function assertSameAsLocal(out: string, stdout: string): void {
  assert.equal(stdout, local.stdout);
  assert.deepEqual(sweepFiles(out), local.files);
  const keys = recordedKeys(out);
  assert.equal(keys.length, 6, "every run recorded");
  assert.equal(new Set(keys).size, keys.length, "no run recorded twice");
}

test("a sweep over two workers gives the local sweep's tables, and a rerun reuses every run", async () => {
  const out = path.join(dir, "two-workers");
  const url = `${redis.url}/1`;
  const workers = [worker(url), worker(url)];
  const sweep = new Blis(["sweep", plan, "--out", out, "--queue", url, "--no-progress"]);
  assert.equal(await sweep.exited, 0, sweep.stderr);
  assertSameAsLocal(out, sweep.stdout);
  const runs = workers.flatMap((w) => w.runs());
  assert.equal(runs.length, 6);
  assert.ok(
    workers.every((w) => w.runs().length > 0),
    "both workers ran runs",
  );
  // SIGTERM: each worker finishes and exits 0.
  for (const w of workers) assert.equal(await w.stop(), 0, w.stderr);
  assert.match(workers[0]!.stderr, /worker: stopped after \d+ runs/);

  const again = new Blis(["sweep", plan, "--out", out, "--queue", url]);
  assert.equal(await again.exited, 0, again.stderr);
  assert.match(again.stderr, /sweep: 6 runs, 6 already finished, 0 to run/);
  assert.equal(again.stdout, local.stdout);
});

test("a worker SIGKILLed in the middle of a run: its run goes to the other worker, tables unchanged", async () => {
  const out = path.join(dir, "killed-worker");
  const url = `${redis.url}/2`;
  const victim = worker(url);
  const survivor = worker(url);
  const sweep = new Blis(["sweep", plan, "--out", out, "--queue", url, "--no-progress"]);
  // Right after its first run the victim has taken the next one: kill it during that run.
  await victim.waitFor(/^worker: \[.*\] ok in /m);
  await sleep(100);
  victim.proc.kill("SIGKILL");
  await victim.exited;
  assert.equal(await sweep.exited, 0, sweep.stderr);
  assertSameAsLocal(out, sweep.stdout);
  // The victim died in a run: the survivor's stalled-job check gave that run back to the queue.
  assert.match(
    sweep.stderr,
    /warning: the worker running run \[.*\] stopped answering; the run went back to the queue/,
  );
  const victimRuns = victim.runs();
  const survivorRuns = survivor.runs();
  assert.ok(victimRuns.length < 6 && victimRuns.length >= 1, victim.stderr);
  // Every run finished exactly once: none of the victim's finished runs was run again.
  assert.deepEqual([...victimRuns, ...survivorRuns].sort(), [...new Set(recordedKeys(out))].sort());
  assert.equal(await survivor.stop(), 0);
});

test("the coordinator killed and restarted resumes without running finished runs again", async () => {
  const out = path.join(dir, "killed-coordinator");
  const url = `${redis.url}/3`;
  const w = worker(url);
  const first = new Blis(["sweep", plan, "--out", out, "--queue", url, "--no-progress"]);
  while (!fs.existsSync(path.join(out, "runs.jsonl")) || recordedKeys(out).length < 2) await sleep(50);
  first.proc.kill("SIGKILL");
  await first.exited;
  const recorded = recordedKeys(out).length;
  assert.ok(recorded >= 2 && recorded < 6, `killed after ${recorded} runs`);
  const second = new Blis(["sweep", plan, "--out", out, "--queue", url]);
  assert.equal(await second.exited, 0, second.stderr);
  assert.match(second.stderr, new RegExp(`sweep: 6 runs, ${recorded} already finished, ${6 - recorded} to run`));
  assertSameAsLocal(out, second.stdout);
  // The worker ran each run once, across both coordinators.
  assert.deepEqual(w.runs().sort(), recordedKeys(out).sort());
  assert.equal(await w.stop(), 0);
});

test("bad --queue URLs and an unreachable Redis are one-line errors with exit status 1, nothing written", async () => {
  const out = path.join(dir, "never-written");
  const sweep = (url: string, ...extra: string[]): string[] => ["sweep", plan, "--out", out, "--queue", url, ...extra];
  const cases: [string[], RegExp][] = [
    [sweep("localhost:6379"), /^error: --queue "localhost:6379": .*; expected redis:\/\/HOST:PORT\[\/DB\]$/],
    [sweep("http://x:1"), /^error: --queue "http:\/\/x:1": the scheme is "http", not redis; expected/],
    [
      sweep("redis://127.0.0.1:6379/x"),
      /^error: --queue "redis:\/\/127\.0\.0\.1:6379\/x": the database "x" is not a number;/,
    ],
    [["worker", "--queue", "redis://"], /^error: --queue "redis:\/\/": (not a URL|no host);/],
    [sweep(redis.url, "--jobs", "2"), /^error: --jobs cannot be combined with --queue/],
    [sweep(redis.url, "--shard", "0/2"), /^error: --shard cannot be combined with --queue$/],
    [
      sweep("redis://127.0.0.1:1"),
      /^error: --queue redis:\/\/127\.0\.0\.1:1: cannot reach Redis \(.*ECONNREFUSED.*\)$/,
    ],
    [["worker", "--queue", "redis://127.0.0.1:1"], /^error: --queue redis:\/\/127\.0\.0\.1:1: cannot reach Redis/],
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
});

test("a server that accepts the connection but never answers fails within the connect timeout", async () => {
  const silent = net.createServer(() => undefined);
  await new Promise<void>((r) => silent.listen(0, "127.0.0.1", r));
  const port = (silent.address() as net.AddressInfo).port;
  const t0 = Date.now();
  await assert.rejects(probeRedis(parseQueueUrl(`redis://127.0.0.1:${port}/2`), 300), (e: Error) => {
    assert.ok(e instanceof UserError);
    assert.equal(e.message, `--queue redis://127.0.0.1:${port}/2: cannot reach Redis (no answer within 0.3 s)`);
    return true;
  });
  assert.ok(Date.now() - t0 < 2000);
  silent.close();
});

test("a server that answers something else than Redis is named as such", async () => {
  const http = net.createServer((s) => s.on("data", () => s.end("HTTP/1.1 400 Bad Request\r\n\r\n")));
  await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
  const port = (http.address() as net.AddressInfo).port;
  await assert.rejects(
    probeRedis(parseQueueUrl(`redis://127.0.0.1:${port}`), 2000),
    new UserError(
      `--queue redis://127.0.0.1:${port}: cannot reach Redis (the server does not speak the Redis protocol)`,
    ),
  );
  http.close();
});

test("a worker of another version refuses a job and leaves it queued", async () => {
  const { Queue } = await import("bullmq");
  const { connectionOptions } = await import("../../src/queue/connect.js");
  const url = parseQueueUrl(redis.url);
  const queue = new Queue(QUEUE_NAME, { connection: connectionOptions(url), prefix: KEY_PREFIX });
  const data: RunJobData = {
    format: JOB_FORMAT,
    version: "0.0.0+000000000000",
    plan: "p",
    key: '["x",1,0]',
    input: encodeInput({ model: "meta-llama/llama-3.1-8b-instruct", seed: 1n } as RunInput),
    timeoutMs: 1000,
  };
  const job = await queue.add("run", data, { jobId: "run-other-version" });
  const w = worker(redis.url);
  await w.waitFor(
    /worker: refusing runs of blis-ts 0\.0\.0\+000000000000: this worker is \S+ and would not run them identically; they stay queued/,
  );
  // The worker says so while it hands the job back: wait (bounded) for the state to settle.
  let state = await job.getState();
  for (let i = 0; i < 50 && state === "active"; i++) {
    await sleep(20);
    state = await job.getState();
  }
  assert.ok(["delayed", "waiting"].includes(state), state);
  assert.deepEqual(w.runs(), []);
  assert.equal(await w.stop(), 0);
  await job.remove();
  await queue.close();
});

test("run options survive the trip through a job: bigints, non-finite numbers, undefined members, key order", () => {
  const input = {
    b: 1,
    a: undefined,
    seed: 12345678901234567890n,
    horizon: Infinity,
    list: [1, undefined, -Infinity],
  } as unknown as RunInput;
  const back = decodeInput(encodeInput(input)) as unknown as Record<string, unknown>;
  assert.deepEqual(Object.keys(back), ["b", "a", "seed", "horizon", "list"]);
  assert.ok("a" in back && back["a"] === undefined);
  assert.equal(back["seed"], 12345678901234567890n);
  assert.equal(back["horizon"], Infinity);
  assert.deepEqual(back["list"], [1, undefined, -Infinity]);
});
