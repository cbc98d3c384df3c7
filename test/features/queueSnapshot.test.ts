// The queue snapshot (src/features/queueSnapshot/): its flag and bundle key, its checks, and a
// property: each instance's waiting + running requests at T are the requests queued there before
// T that had not yet completed (counted independently of the snapshot, per request).
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import fc from "fast-check";
import { simulate } from "../../src/sim/simulate.js";
import type { RunInput } from "../../src/config/runOptions.js";
import type { StepProbe } from "../../src/instance/stepProbe.js";
import type { QueueSnapshotResults } from "../../src/features/queueSnapshot/extension.js";
import { cli, clusterBlock, withoutLatencyNote } from "../helpers/cli.js";
import { FC_SEED } from "../helpers/fc.js";

const MODEL = "meta-llama/llama-3.1-8b-instruct";
const RUN = ["run", "--model", MODEL, "--num-instances", "2", "--rate", "20", "--num-requests", "200"];

function tmpFile(name: string, text: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "blis-queue-snapshot-"));
  const p = path.join(dir, name);
  fs.writeFileSync(p, text);
  return p;
}

function snapshotOf(stdout: string): unknown {
  return (clusterBlock(stdout)["features"] as unknown as Record<string, unknown> | undefined)?.["queue-snapshot"];
}

test("the flag and the bundle key give the same snapshot, and the flag wins over the bundle", async () => {
  const byFlag = await cli([...RUN, "--queue-snapshot-at-us", "5000000"]);
  const byBundle = await cli([...RUN, "--policy-config", tmpFile("p.yaml", "queue_snapshot:\n  at_us: 5000000\n")]);
  assert.equal(byFlag.code, 0, byFlag.stderr.join("\n"));
  assert.equal(byBundle.code, 0, byBundle.stderr.join("\n"));
  const snap = snapshotOf(byFlag.stdout) as QueueSnapshotResults;
  assert.equal(snap.at_us, 5000000);
  assert.equal(snap.waiting.length, 2);
  assert.ok(
    snap.running.some((n) => n > 0),
    "mid-run, something runs",
  );
  assert.deepEqual(snapshotOf(byBundle.stdout), snap);
  const overridden = await cli([
    ...RUN,
    "--policy-config",
    tmpFile("p.yaml", "queue_snapshot:\n  at_us: 1\n"),
    "--queue-snapshot-at-us",
    "5000000",
  ]);
  assert.deepEqual(snapshotOf(overridden.stdout), snap);
});

test("a negative time is one line on stderr, exit status 1 and nothing on stdout", async () => {
  const r = await cli([...RUN, "--queue-snapshot-at-us", "-1"]);
  assert.equal(r.code, 1);
  assert.deepEqual(r.stderr, ["error: --queue-snapshot-at-us must be >= 0, got -1"]);
  assert.equal(r.stdout, "");
});

test("a bundle value of the wrong type is one line naming the key and its line", async () => {
  const bundle = tmpFile("p.yaml", "routing:\n  policy: round-robin\nqueue_snapshot:\n  at_us: soon\n");
  const r = await cli([...RUN, "--policy-config", bundle]);
  assert.equal(r.code, 1);
  assert.equal(r.stderr.length, 1, r.stderr.join("\n"));
  assert.match(r.stderr[0]!, /queue_snapshot\.at_us: .*expected number.*\(line 4, column 10\)$/);
  assert.equal(r.stdout, "");
  const fractional = await cli([...RUN, "--policy-config", tmpFile("p.yaml", "queue_snapshot:\n  at_us: 1.5\n")]);
  assert.equal(fractional.code, 1);
  assert.match(fractional.stderr.join("\n"), /queue_snapshot\.at_us: .*expected int.*\(line 2, column 10\)/);
});

test("a time after the horizon warns and takes no snapshot", async () => {
  const r = await cli([...RUN, "--horizon", "3000000", "--queue-snapshot-at-us", "3000001"]);
  assert.equal(r.code, 0, r.stderr.join("\n"));
  assert.ok(
    r.stderr.includes(
      'level=warn msg="--queue-snapshot-at-us 3000001 is after the horizon (3000000); no snapshot is taken"',
    ),
    r.stderr.join("\n"),
  );
  assert.equal(clusterBlock(r.stdout)["features"], undefined);
  const atHorizon = await cli([...RUN, "--horizon", "3000000", "--queue-snapshot-at-us", "3000000"]);
  assert.equal((snapshotOf(atHorizon.stdout) as QueueSnapshotResults).at_us, 3000000);
});

test("off by default: without the flag, or at 0, stdout is byte-identical to a run that never heard of it", async () => {
  const plain = await cli(RUN);
  const zero = await cli([...RUN, "--queue-snapshot-at-us", "0"]);
  assert.equal(plain.code, 0);
  assert.ok(!plain.stdout.includes('"features"'));
  assert.equal(zero.stdout, plain.stdout);
  assert.deepEqual(withoutLatencyNote(zero.stderr), withoutLatencyNote(plain.stderr));
});

test("a snapshot during the run changes no other metric", async () => {
  const plain = await cli(RUN);
  const snap = await cli([...RUN, "--queue-snapshot-at-us", "5000000"]);
  const { features, ...rest } = clusterBlock(snap.stdout);
  assert.ok(features !== undefined);
  assert.deepEqual(rest, clusterBlock(plain.stdout));
});

/** Per request, when it entered its instance's wait queue and the start of the step it completed in. */
interface Lifetimes {
  instance: Map<string, number>;
  queuedAt: Map<string, number>;
  /** Start of the step that completed it: the event at which it leaves the running batch. */
  doneAt: Map<string, number>;
}

function lifetimeProbe(into: Lifetimes): StepProbe {
  const stepStart: number[] = [];
  return {
    onQueued(i, r, now) {
      into.instance.set(r.id, i);
      into.queuedAt.set(r.id, now);
    },
    onStep(i, _idx, now) {
      stepStart[i] = now;
    },
    onFirstToken() {},
    onComplete(i, r) {
      into.doneAt.set(r.id, stepStart[i]!);
    },
  };
}

/**
 * Requests in instance i's wait queue or batch at T: queued before T (an instance event at T runs
 * after the snapshot, a cluster event) and not yet left (a completing step that starts at T has not
 * run either). A request dropped as unservable is never queued; a preempted one stays counted.
 */
function expectedAt(t: number, lives: Lifetimes, numInstances: number): number[] {
  const out = new Array<number>(numInstances).fill(0);
  for (const [id, q] of lives.queuedAt) {
    const done = lives.doneAt.get(id) ?? Infinity;
    if (q < t && t <= done) out[lives.instance.get(id)!]!++;
  }
  return out;
}

const cluster = fc.record({
  numInstances: fc.integer({ min: 1, max: 4 }),
  rate: fc.integer({ min: 5, max: 400 }),
  numRequests: fc.integer({ min: 1, max: 40 }),
  // Small enough that long prompts are unservable and busy instances preempt.
  totalKvBlocks: fc.integer({ min: 8, max: 120 }),
  promptTokens: fc.integer({ min: 16, max: 600 }),
  outputTokens: fc.integer({ min: 1, max: 300 }),
  routingPolicy: fc.constantFrom("round-robin", "least-loaded", "weighted"),
  seed: fc.integer({ min: 1, max: 1000 }),
  // Where the snapshot falls: on a queueing or completion event (± 1 tick), or anywhere.
  at: fc.constantFrom("queued", "done", "anywhere"),
  pick: fc.nat(),
  delta: fc.integer({ min: -1, max: 1 }),
});

function runInput(c: {
  numInstances: number;
  rate: number;
  numRequests: number;
  totalKvBlocks: number;
  promptTokens: number;
  outputTokens: number;
  routingPolicy: string;
  seed: number;
}): RunInput {
  return {
    model: MODEL,
    numInstances: c.numInstances,
    rate: c.rate,
    numRequests: c.numRequests,
    totalKvBlocks: c.totalKvBlocks,
    promptTokens: c.promptTokens,
    promptTokensStdev: Math.max(1, Math.floor(c.promptTokens / 2)),
    promptTokensMin: 1,
    outputTokens: c.outputTokens,
    outputTokensStdev: Math.max(1, Math.floor(c.outputTokens / 2)),
    outputTokensMin: 1,
    routingPolicy: c.routingPolicy,
    seed: c.seed,
  };
}

test("property: waiting + running at T are the requests queued before T that had not completed", async () => {
  let preempting = 0;
  let dropping = 0;
  let busy = 0;
  let onEdge = 0;
  await fc.assert(
    fc.asyncProperty(cluster, async (c) => {
      const lives: Lifetimes = { instance: new Map(), queuedAt: new Map(), doneAt: new Map() };
      const base = await simulate(runInput(c), { hooks: { stepProbe: lifetimeProbe(lives) } });
      // The per-request records agree with the probe on where each request went.
      const records = base.resultsObject().requests ?? [];
      assert.equal(records.length, lives.queuedAt.size);
      for (const r of records) {
        assert.equal(r.handled_by, `instance_${lives.instance.get(r.requestID)}`);
        assert.ok(Math.round(r.arrived_at * 1e6) <= lives.queuedAt.get(r.requestID)!);
      }
      const times =
        c.at === "queued" ? [...lives.queuedAt.values()] : c.at === "done" ? [...lives.doneAt.values()] : [];
      const end = Math.max(1, ...lives.doneAt.values());
      const t = times.length > 0 ? Math.max(1, times[c.pick % times.length]! + c.delta) : 1 + (c.pick % (end + 2));
      if (base.metrics.cluster.preemption_count > 0) preempting++;
      if (base.metrics.cluster.dropped_unservable > 0) dropping++;

      const input: RunInput = Object.assign(runInput(c), { queueSnapshotAtUs: t });
      const res = await simulate(input);
      const snap = res.metrics.cluster.features?.["queue-snapshot"] as QueueSnapshotResults;
      assert.equal(snap.at_us, t);
      const seen = snap.waiting.map((w, i) => w + snap.running[i]!);
      assert.deepEqual(seen, expectedAt(t, lives, c.numInstances), `T=${t}`);
      if (seen.some((n) => n > 0)) busy++;
      if ([...lives.queuedAt.values(), ...lives.doneAt.values()].includes(t)) onEdge++;
      for (const used of snap.kv_used_blocks) assert.ok(used >= 0 && used <= c.totalKvBlocks);
      // The snapshot's event changes nothing else.
      const rest = { ...res.metrics.cluster };
      delete rest.features;
      assert.deepEqual(rest, base.metrics.cluster);
    }),
    { seed: FC_SEED, numRuns: 100 },
  );
  assert.ok(busy > 10, `snapshots of busy instances: ${busy}`);
  assert.ok(onEdge > 10, `snapshots on a queueing or completion tick: ${onEdge}`);
  assert.ok(preempting > 0, "some cases preempt");
  assert.ok(dropping > 0, "some cases drop unservable requests");
});

test("replay takes a feature's flag too: the snapshot of a replayed measured trace", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "blis-queue-snapshot-replay-"));
  const header = path.join(dir, "t.yaml");
  const data = path.join(dir, "t.csv");
  const measured = path.resolve(import.meta.dirname, "..", "..", "..", "data", "calibration", "traces");
  const csv = path.join(measured, "h100-llama-2-7b-tp1-roleplay.csv");
  const conv = await cli([
    "convert",
    "measured",
    csv,
    "--prompt-cycle",
    "100",
    "--trace-header",
    header,
    "--trace-data",
    data,
  ]);
  assert.equal(conv.code, 0, conv.stderr.join("\n"));
  const deployment = ["--model", "meta-llama/llama-2-7b-hf", "--hardware", "H100", "--tp", "1"];
  const replay = ["replay", "--trace-header", header, "--trace-data", data, ...deployment];
  const r = await cli([...replay, "--queue-snapshot-at-us", "10000000"]);
  assert.equal(r.code, 0, r.stderr.join("\n"));
  const snap = snapshotOf(r.stdout) as QueueSnapshotResults;
  assert.equal(snap.at_us, 10000000);
  assert.deepEqual([snap.waiting.length, snap.running.length], [1, 1]);
  assert.ok(snap.running[0]! > 0, "the measured run keeps requests in flight at 10 s");
  fs.rmSync(dir, { recursive: true, force: true });
});
