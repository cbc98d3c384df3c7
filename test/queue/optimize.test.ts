// `blis optimize --queue`: each step's batch of points runs on the workers, and the search gives
// the evaluations and best point of a local search with the same batch size.

import { after, test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Blis, killAll, startRedis, worker } from "./helpers.js";

const SPACE = `name: tiny
seed: 3
seeds: [42, 43]
budget: 6
initial: 3
base:
  flags:
    model: meta-llama/llama-3.1-8b-instruct
    latency-model: blackbox
    num-instances: 2
    routing-policy: weighted
    num-requests: 300
    rate: 2000
    log: error
baseline:
  flags:
    routing-scorers: "prefix-affinity:3,queue-depth:2,kv-utilization:2"
parameters:
  - {name: w_queue, type: integer, min: 1, max: 5, target: {scorer: queue-depth}}
  - {name: instances, type: integer, min: 1, max: 6, target: {flag: num-instances}}
objective: {metric: ttft_p99, direction: minimize}
`;

after(killAll);

/** The search's result files that hold no wall times. */
function results(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of ["evaluations.csv", "convergence.md", "best-command.txt"])
    out[f] = fs.readFileSync(path.join(dir, f), "utf8");
  return out;
}

test("a search over the queue evaluates the points of a local search with the same batch size", async () => {
  const redis = await startRedis();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "blis-optq-"));
  try {
    const space = path.join(dir, "space.yaml");
    fs.writeFileSync(space, SPACE);
    const w = [worker(redis.url), worker(redis.url)];
    const local = new Blis(["optimize", space, "--out", path.join(dir, "local"), "--jobs", "2", "--no-progress"]);
    const queued = new Blis([
      "optimize",
      space,
      "--out",
      path.join(dir, "queued"),
      "--jobs",
      "2",
      "--queue",
      redis.url,
      "--no-progress",
    ]);
    assert.equal(await local.exited, 0, local.stderr);
    assert.equal(await queued.exited, 0, queued.stderr);
    // The output directory's name is the only difference.
    const same = (text: string): string => text.replaceAll(path.join(dir, "queued"), path.join(dir, "local"));
    assert.equal(same(queued.stdout), local.stdout);
    const a = results(path.join(dir, "local"));
    assert.deepEqual(results(path.join(dir, "queued")), a);
    // The objective varies over the space, so the Bayesian steps depended on the results.
    assert.ok(
      new Set(
        a["evaluations.csv"]!.split("\n")
          .slice(2, -1)
          .map((l) => l.split(",")[5]),
      ).size > 2,
      a["evaluations.csv"],
    );
    // The baseline and 6 evaluations × 2 seeds, all on the workers.
    assert.equal(w.flatMap((x) => x.runs()).length, 14);
    for (const x of w) assert.equal(await x.stop(), 0);
  } finally {
    await redis.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
