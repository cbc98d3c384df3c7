// `blis plan --queue`: the simulations run on the workers, and the plan is the local plan.

import { after, test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Blis, killAll, startRedis, worker } from "./helpers.js";

after(killAll);

test("a plan over the queue prints what the local plan prints, its simulations run by the workers", async () => {
  const redis = await startRedis();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "blis-planq-"));
  try {
    const args = (out: string): string[] => [
      "plan",
      "--model",
      "meta-llama/llama-3.1-8b-instruct",
      "--rate",
      "60",
      "--slo",
      "ttft_p99_ms=200,itl_p99_ms=20",
      "--gpus",
      "H100",
      "--tp",
      "1,2",
      "--seeds",
      "2",
      "--max-replicas",
      "4",
      "--num-requests",
      "600",
      "--prompt-tokens",
      "512",
      "--output-tokens",
      "128",
      "--output-tokens-stdev",
      "16",
      "--log",
      "error",
      "--no-progress",
      "--out",
      path.join(dir, out),
    ];
    const w = [worker(redis.url), worker(redis.url)];
    const local = new Blis([...args("local"), "--jobs", "2"]);
    const queued = new Blis([...args("queued"), "--queue", redis.url]);
    assert.equal(await local.exited, 0, local.stderr);
    assert.equal(await queued.exited, 0, queued.stderr);
    assert.equal(queued.stdout, local.stdout);
    const sims = Number(/(\d+) simulations \(an exhaustive/.exec(local.stdout)?.[1]);
    assert.ok(sims > 0);
    assert.equal(w.flatMap((x) => x.runs()).length, sims);
    for (const x of w) assert.equal(await x.stop(), 0);
  } finally {
    await redis.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
