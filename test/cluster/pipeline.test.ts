// Pipeline timing (docs/behavior.md "Cluster pipeline", "Event loop and same-tick ordering"), N = 1
// admission (docs/behavior.md#c1), snapshot freshness.
import { test } from "node:test";
import assert from "node:assert/strict";
import { EV_ARRIVAL, EV_QUEUED, EV_STEP } from "../../src/engine/eventQueue.js";
import { SnapshotProvider } from "../../src/cluster/snapshot.js";
import type { Instance } from "../../src/instance/instance.js";
import { runCluster } from "../../src/sim/runCluster.js";
import { ArrayRequestSource } from "../../src/core/workloadRequest.js";
import { Logger } from "../../src/util/log.js";
import { record, req, run, simConfig } from "../helpers/sim.js";
import { runCli } from "./helpers.js";
import { clusterBlock, metricBlocks } from "../helpers/cli.js";
import type { SimConfig } from "../../src/sim/simConfig.js";

test("admission and routing latencies shift scheduling delay, TTFT and E2E by exactly La + Lr", () => {
  const reqs = Array.from({ length: 16 }, (_, i) =>
    req(`request_${i}`, i * 7000 + (i % 3) * 50, 40 + (i % 5) * 30, 6 + (i % 4)),
  );
  const base = { alpha: [100, 1, 50], beta: [1000, 2, 1] };
  const r0 = run(simConfig({ ...base, cluster: { numInstances: 2, routing: { policy: "least-loaded" } } }), reqs);
  for (const [la, lr] of [
    [300, 700],
    [1000, 0],
    [0, 1000],
  ] as const) {
    const r1 = run(
      simConfig({
        ...base,
        cluster: { numInstances: 2, admission: { latency: la }, routing: { policy: "least-loaded", latency: lr } },
      }),
      reqs,
    );
    for (const x of reqs) {
      const a = record(r0, x.id);
      const b = record(r1, x.id);
      assert.equal(b.completed, true);
      assert.equal(b.sched, a.sched + 1000, `${x.id} sched (La=${la}, Lr=${lr})`);
      assert.equal(b.ttft, a.ttft + 1000, `${x.id} ttft`);
      assert.equal(b.e2e, a.e2e + 1000, `${x.id} e2e`);
    }
  }
  // Scheduling delay = queueing delay + La + Lr for an unloaded instance: α0 + α1·L = 100 + 40.
  const single = run(
    simConfig({
      alpha: [100, 1, 50],
      beta: [1000, 2, 1],
      cluster: { admission: { latency: 3 }, routing: { latency: 5 } },
    }),
    [req("request_0", 1000, 40, 4)],
  );
  assert.equal(record(single, "request_0").sched, 8 + 140);
});

function orderingLog(cfg: SimConfig, reqs: ReturnType<typeof req>[]): string[] {
  const log: string[] = [];
  const kinds: Record<number, string> = { [EV_ARRIVAL]: "arrival", [EV_QUEUED]: "queued", [EV_STEP]: "step" };
  const logger = new Logger("debug", (line) => {
    const m = /msg="t=(-?\d+) (arrival|admission|routing) (\S+?):? ?(?:-> (instance_\d+))?/.exec(line);
    if (m) log.push(`C ${m[2]} ${m[3]}${m[4] ? " " + m[4] : ""} @${m[1]}`);
  });
  runCluster(cfg, new ArrayRequestSource(reqs), logger, {
    instanceObserver: {
      afterEvent(inst: Instance, t: number, kind: number) {
        log.push(`I${inst.index} ${kinds[kind]} @${t}`);
      },
      afterStep() {},
    },
  });
  return log;
}

test("worked ordering example (La = 0, Lr = 10)", () => {
  // Z and W keep instance_0 and instance_1 busy with 90-tick steps starting at 10, so each has a
  // StepEvent pending at t = 100 when A and B arrive.
  const cfg = simConfig({ alpha: [0, 0, 0], beta: [90, 0, 0], cluster: { numInstances: 2, routing: { latency: 10 } } });
  const log = orderingLog(cfg, [req("Z", 0, 16, 10), req("W", 0, 16, 10), req("A", 100, 16, 2), req("B", 100, 16, 2)]);
  const start = log.indexOf("C arrival A @100");
  assert.ok(start > 0, log.join("\n"));
  assert.deepEqual(log.slice(start, start + 8), [
    "C arrival A @100",
    "C arrival B @100",
    "C admission A @100",
    "C admission B @100",
    "I0 step @100",
    "I1 step @100",
    "C routing A instance_0 @110",
    "C routing B instance_1 @110",
  ]);
  // Then the instance events at 110, including the two injected ArrivalEvents.
  const after = log.slice(start + 8).filter((l) => l.endsWith("@110"));
  assert.ok(after.includes("I0 arrival @110") && after.includes("I1 arrival @110"), after.join("\n"));
  assert.ok(after.every((l) => l.startsWith("I")));
  // Earlier: the start of the run (cluster before instance at t = 0 and at t = 10).
  assert.deepEqual(log.slice(0, 6), [
    "C arrival Z @0",
    "C arrival W @0",
    "C admission Z @0",
    "C admission W @0",
    "C routing Z instance_0 @10",
    "C routing W instance_1 @10",
  ]);
});

test("an instance event at T never runs before a cluster event at T created at T", () => {
  // La = Lr = 0: arrival, admission and routing of B all happen at 50, before instance_0's step at 50.
  const cfg = simConfig({ alpha: [0, 0, 0], beta: [50, 0, 0] });
  const log = orderingLog(cfg, [req("A", 0, 16, 5), req("B", 50, 16, 2)]);
  const i = log.indexOf("C arrival B @50");
  assert.deepEqual(log.slice(i, i + 3), ["C arrival B @50", "C admission B @50", "C routing B instance_0 @50"]);
  // The step pending at 50 runs only after the routing decision created at 50 (the same-time order
  // inside one instance, arrival before step, is the instance's own; docs/behavior.md
  // "Event loop and same-tick ordering").
  assert.ok(log.indexOf("I0 step @50") > i + 2, log.join("\n"));
});

test("N = 1 still applies admission: reject-all rejects everything, an empty cluster block and the anomaly block", async () => {
  const res = await runCli("--num-instances", "1", "--admission-policy", "reject-all");
  assert.equal(res.code, 0);
  assert.equal(metricBlocks(res.stdout).length, 1);
  assert.equal(clusterBlock(res.stdout)["injected_requests"], 0);
  assert.ok(
    res.stdout.endsWith(
      "}\n=== Anomaly Counters ===\nPriority Inversions: 0\nHOL Blocking Events: 0\nRejected Requests: 12\nDropped Unservable: 0\n",
    ),
    res.stdout,
  );
  assert.ok(
    res.stderr.some((l) => l.includes('all 12 requests rejected by admission policy \\"reject-all\\"')),
    res.stderr.join("\n"),
  );
});

test("N = 1 applies both latencies too", () => {
  const r = run(
    simConfig({
      alpha: [0, 0, 0],
      beta: [1000, 0, 0],
      cluster: { admission: { latency: 250 }, routing: { latency: 750 } },
    }),
    [req("request_0", 0, 16, 2)],
  );
  assert.equal(record(r, "request_0").sched, 1000);
});

// --- Snapshot freshness (docs/behavior.md "Snapshots and signal freshness") ---

interface FakeState {
  queue: number;
  running: number;
  util: number;
  free: number;
}
function fakeInstance(index: number, st: FakeState): Instance {
  return {
    id: `instance_${index}`,
    index,
    get waitQueue() {
      return { length: st.queue };
    },
    get running() {
      return new Array(st.running).fill(null);
    },
    kv: {
      utilization: () => st.util,
      freeBlocks: () => st.free,
      cacheHitRate: () => 0.5,
      pendingTransferLatency: () => 7,
      thrashingRate: () => 0.25,
    },
  } as unknown as Instance;
}

test("snapshot interval 0: every call re-reads the instance", () => {
  const st: FakeState = { queue: 3, running: 2, util: 0.4, free: 60 };
  const inFlight = new Int32Array(1);
  const p = new SnapshotProvider([fakeInstance(0, st)], inFlight, 0);
  let s = p.take(0).snapshots[0]!;
  assert.deepEqual([s.queueDepth, s.batchSize, s.kvUtilization, s.freeKvBlocks, s.cacheHitRate], [3, 2, 0.4, 60, 0.5]);
  assert.deepEqual([s.pendingTransferLatency, s.kvThrashingRate], [7, 0.25]);
  st.queue = 9;
  s = p.take(0).snapshots[0]!;
  assert.equal(s.queueDepth, 9);
});

test("snapshot interval > 0: zeros until the first call at t ≥ interval, then lazy refresh; in-flight always live", () => {
  const st: FakeState = { queue: 3, running: 2, util: 0.4, free: 60 };
  const inFlight = new Int32Array(1);
  const p = new SnapshotProvider([fakeInstance(0, st)], inFlight, 100);
  const read = (t: number) => {
    const s = p.take(t).snapshots[0]!;
    return [s.queueDepth, s.batchSize, s.kvUtilization, s.freeKvBlocks, s.inFlight, s.effectiveLoad];
  };
  inFlight[0] = 2;
  assert.deepEqual(read(0), [0, 0, 0, 0, 2, 2], "t − last = 0 < 100: the all-zero initial cache");
  inFlight[0] = 4;
  assert.deepEqual(read(99), [0, 0, 0, 0, 4, 4], "in-flight is live");
  assert.deepEqual(read(100), [3, 2, 0.4, 60, 4, 9], "first refresh at t = 100; last = 100");
  st.queue = 7;
  st.free = 10;
  assert.deepEqual(read(150), [3, 2, 0.4, 60, 4, 9]);
  assert.deepEqual(read(199), [3, 2, 0.4, 60, 4, 9]);
  assert.deepEqual(read(200), [7, 2, 0.4, 10, 4, 13], "t − last = 100 ≥ 100");
  st.queue = 1;
  assert.deepEqual(read(350), [1, 2, 0.4, 10, 4, 7], "lazy: refreshed at the first decision after the interval");
  st.queue = 5;
  assert.deepEqual(read(400), [1, 2, 0.4, 10, 4, 7], "not on a fixed grid: 400 − 350 < 100");
  assert.deepEqual(read(449), [1, 2, 0.4, 10, 4, 7]);
  assert.deepEqual(read(450), [5, 2, 0.4, 10, 4, 11]);
});

test("snapshot staleness end to end: routing-time candidates read zeros before the first refresh", () => {
  const reqs = Array.from({ length: 40 }, (_, i) => req(`request_${i}`, i * 1000, 64, 60));
  const cfg = (interval: number) =>
    simConfig({
      alpha: [0, 0, 0],
      beta: [1000, 1, 1],
      cluster: { numInstances: 2, routing: { policy: "least-loaded", snapshotRefreshInterval: interval } },
      trace: { level: "decisions", counterfactualK: 2 },
    });
  const routedSoFar = [0, 0];
  const stale = run(cfg(30000), reqs);
  for (const rec of stale.trace!.routings) {
    const byId = new Map(rec.candidates.map((c) => [c.instanceId, c]));
    if (rec.clock < 30000) {
      for (const c of rec.candidates) {
        assert.deepEqual([c.queueDepth, c.batchSize, c.kvUtilization, c.freeKvBlocks], [0, 0, 0, 0], `t=${rec.clock}`);
      }
      // Nothing completes before 30000 (≥ 61 steps of ≥ 1000 ticks), so in-flight = routed so far.
      assert.equal(byId.get("instance_0")!.inFlight, routedSoFar[0]);
      assert.equal(byId.get("instance_1")!.inFlight, routedSoFar[1]);
    } else {
      assert.ok(
        rec.candidates.some((c) => c.freeKvBlocks > 0),
        `refreshed at t=${rec.clock}`,
      );
    }
    const k = rec.chosen === "instance_0" ? 0 : 1;
    routedSoFar[k] = routedSoFar[k]! + 1;
  }
  // Within one refresh window every instance-reported field is frozen.
  const windows = new Map<number, string>();
  let last = 0;
  for (const rec of stale.trace!.routings) {
    if (rec.clock - last >= 30000) last = rec.clock;
    const key = JSON.stringify(
      rec.candidates.map((c) => [c.instanceId, c.queueDepth, c.batchSize, c.kvUtilization, c.freeKvBlocks]).sort(),
    );
    if (windows.has(last)) assert.equal(key, windows.get(last), `window starting ${last}`);
    else windows.set(last, key);
  }
  assert.ok(windows.size >= 2);

  const fresh = run(cfg(0), reqs);
  assert.ok(
    fresh.trace!.routings.some(
      (rec) => rec.clock < 30000 && rec.candidates.some((c) => c.queueDepth + c.batchSize > 0 && c.freeKvBlocks > 0),
    ),
  );
});
