// The filter step and the cache signals (docs/behavior.md "Routing and scorers", "Snapshots and
// signal freshness"): candidates serve the request's model; a request without candidates is
// rejected at routing; --cache-signal-delay freezes the instance prefix caches between refreshes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { HashIndex } from "../../src/kv/hashIndex.js";
import { CacheSignalProvider } from "../../src/cluster/scorers/cacheSignals.js";
import { SnapshotProvider } from "../../src/cluster/snapshot.js";
import type { Instance } from "../../src/instance/instance.js";
import { runCluster } from "../../src/sim/runCluster.js";
import { ArrayRequestSource } from "../../src/core/workloadRequest.js";
import { renderTail } from "../../src/metrics/render.js";
import { requestRecords } from "../../src/metrics/collect.js";
import { Logger } from "../../src/util/log.js";
import { req, run, simConfig } from "../helpers/sim.js";
import { mkReq, tokens } from "./helpers.js";

const H = [101, 202, 303, 404];

test("cache signals, delay 0: every query reads the live index", () => {
  const live = new HashIndex(16);
  const c = new CacheSignalProvider([{ prefixIndex: live }], 0);
  const hashes = Float64Array.from(H);
  assert.equal(c.cachedBlocks(0, hashes), 0);
  live.set(101, 0);
  live.set(202, 1);
  assert.equal(c.cachedBlocks(0, hashes), 2);
  live.set(404, 3);
  assert.equal(c.cachedBlocks(0, hashes), 2, "stops at the first miss (303)");
  live.delete(101);
  assert.equal(c.cachedBlocks(0, hashes), 0, "an evicted root hides the whole chain");
});

test("cache signals, delay > 0: frozen copies refreshed lazily; nothing cached before the first refresh", () => {
  const a = new HashIndex(16);
  const b = new HashIndex(16);
  const c = new CacheSignalProvider([{ prefixIndex: a }, { prefixIndex: b }], 100);
  const hashes = Float64Array.from(H);
  const read = (clock: number): number[] => {
    c.refresh(clock);
    return [c.cachedBlocks(0, hashes), c.cachedBlocks(1, hashes)];
  };
  a.set(101, 0);
  a.set(202, 1);
  assert.deepEqual(read(0), [0, 0], "t − last = 0 < 100: the empty copies taken at construction");
  assert.deepEqual(read(99), [0, 0], "Compat: every instance reports 0 before the first build at t ≥ delay");
  assert.deepEqual(read(100), [2, 0], "first refresh at t = 100; last = 100");
  b.set(101, 7);
  a.delete(202); // evicted on the instance: still reported until the next refresh
  assert.deepEqual(read(150), [2, 0]);
  assert.deepEqual(read(199), [2, 0]);
  assert.deepEqual(read(230), [1, 1], "every instance re-copied at once");
  b.set(202, 8);
  assert.deepEqual(read(300), [1, 1], "lazy, not on a grid: 300 − 230 < 100");
  assert.deepEqual(read(330), [1, 2]);
  // A copy is independent of later growth of the source table.
  for (let k = 0; k < 500; k++) a.set(10000 + k, k);
  assert.deepEqual(read(340), [1, 2]);
  assert.deepEqual(read(430), [1, 2]);
  a.set(202, 1);
  assert.deepEqual(read(530), [2, 2]);
});

interface FakeState {
  queue: number;
}

function fakeInstance(index: number, st: FakeState, prefixIndex: HashIndex): Instance {
  return {
    id: `instance_${index}`,
    index,
    get waitQueue() {
      return { length: st.queue };
    },
    running: [],
    kv: {
      prefixIndex,
      utilization: () => 0,
      freeBlocks: () => 10,
      cacheHitRate: () => 0,
      pendingTransferLatency: () => 0,
      thrashingRate: () => 0,
    },
  } as unknown as Instance;
}

test("snapshot provider: candidates serve the request's model, in any letter case; an empty tag matches all", () => {
  const st: FakeState = { queue: 3 };
  const insts = [fakeInstance(0, st, new HashIndex(16)), fakeInstance(1, st, new HashIndex(16))];
  const p = new SnapshotProvider(insts, new Int32Array(2), 100, { model: "org/model-a" });
  const ids = (model: string, clock: number): string[] =>
    p.take(clock, mkReq("r", tokens(16), { extra: { model } })).snapshots.map((s) => s.id);
  assert.deepEqual(ids("org/model-a", 0), ["instance_0", "instance_1"]);
  assert.deepEqual(ids("", 0), ["instance_0", "instance_1"]);
  assert.deepEqual(
    ids("Org/Model-A", 0),
    ["instance_0", "instance_1"],
    "letter case does not count (docs/behavior.md#c29)",
  );
  assert.deepEqual(ids("org/model-b", 0), []);
  assert.deepEqual(
    p.take(0).snapshots.map((s) => s.id),
    ["instance_0", "instance_1"],
    "no request: every instance",
  );
  // A build without candidates refreshes no periodic snapshot: the refresh waits for a build with some.
  assert.deepEqual(ids("other", 150), []);
  st.queue = 5;
  assert.equal(p.take(160, mkReq("r", tokens(16))).snapshots[0]!.queueDepth, 5, "refreshed at 160, not at 150");
  st.queue = 8;
  assert.equal(p.take(250, mkReq("r", tokens(16))).snapshots[0]!.queueDepth, 5, "250 − 160 < 100");
  // Without a configured model every request matches.
  const any = new SnapshotProvider(insts, new Int32Array(2), 0);
  assert.equal(any.take(0, mkReq("r", tokens(16), { extra: { model: "whatever" } })).snapshots.length, 2);
});

test("snapshot provider: the cache signals refresh at every build, with or without candidates", () => {
  const idx = new HashIndex(16);
  const p = new SnapshotProvider([fakeInstance(0, { queue: 0 }, idx)], new Int32Array(1), 0, {
    model: "m",
    cacheSignalDelay: 50,
  });
  const hashes = Float64Array.from(H);
  idx.set(101, 0);
  // An admission-time build of a request whose model nobody serves still counts as a build.
  assert.equal(p.take(60, mkReq("x", tokens(16), { extra: { model: "other" } })).snapshots.length, 0);
  idx.set(202, 1);
  const s = p.take(100, mkReq("y", tokens(16)));
  assert.equal(s.cache!.cachedBlocks(0, hashes), 1, "the copy of t = 60: 100 − 60 < 50");
  assert.equal(p.take(110, mkReq("y", tokens(16))).cache!.cachedBlocks(0, hashes), 2);
  assert.equal(
    new SnapshotProvider([fakeInstance(0, { queue: 0 }, idx)], new Int32Array(1), 0).cache,
    null,
    "off unless a scorer reads it",
  );
});

test("routing rejection: a request whose model no instance serves is dropped at routing and counted", () => {
  const lines: string[] = [];
  const log = new Logger("warn", (l) => lines.push(l));
  const tags = ["m", "", "x", "M", "other", ""];
  const reqs = tags.map((model, i) => req(`request_${i}`, i * 5000, 40, 5, { model }));
  const cfg = simConfig({ cluster: { numInstances: 2, routing: { policy: "least-loaded" } } });
  cfg.cluster.model = "m";
  const r = runCluster(cfg, new ArrayRequestSource(reqs), log);
  const m = r.metrics;
  assert.equal(m.anomalies.routingRejections, 2);
  assert.equal(m.anomalies.rejected, 0, "not an admission rejection");
  assert.equal(m.cluster.injected_requests, 4);
  assert.equal(m.cluster.completed_requests, 4);
  assert.equal(m.generated, m.cluster.injected_requests + m.anomalies.rejected + m.anomalies.routingRejections!);
  assert.deepEqual(
    requestRecords(r.ledger)
      .map((x) => x.requestID)
      .sort(),
    ["request_0", "request_1", "request_3", "request_5"],
    "no record for a rejected request (M names the served model m in another letter case; x and other name none)",
  );
  assert.deepEqual(
    lines.filter((l) => l.includes("rejected at routing")),
    [
      'level=warn msg="no routable instance serves model \\"x\\" — request request_2 rejected at routing"',
      'level=warn msg="no routable instance serves model \\"other\\" — request request_4 rejected at routing"',
    ],
  );
  const tail = renderTail(m, { printFairness: false, summarizeTrace: false });
  assert.ok(
    tail.startsWith(
      "=== Anomaly Counters ===\nPriority Inversions: 0\nHOL Blocking Events: 0\nRejected Requests: 0\n" +
        "Rejected Requests (Routing): 2\nDropped Unservable: 0\n",
    ),
    tail,
  );
  // The same run with matching tags prints no anomaly block at all.
  const ok = run(simConfig({ cluster: { numInstances: 2, routing: { policy: "least-loaded" } } }), reqs);
  assert.equal(ok.metrics.anomalies.routingRejections, 0);
  assert.ok(!renderTail(ok.metrics, { printFairness: false, summarizeTrace: false }).includes("Anomaly"));
});

test("admission sees only candidates; every request rejected at routing leaves nothing in flight", () => {
  const reqs = Array.from({ length: 5 }, (_, i) => req(`request_${i}`, i * 1000, 40, 5, { model: "x" }));
  const cfg = simConfig({
    cluster: { numInstances: 3, admission: { policy: "slo-gated" }, routing: { policy: "weighted" } },
  });
  cfg.cluster.model = "m";
  const r = runCluster(cfg, new ArrayRequestSource(reqs), new Logger("panic", () => undefined));
  assert.equal(r.metrics.anomalies.routingRejections, 5);
  assert.equal(r.metrics.anomalies.rejected, 0, "slo-gated over no candidates admits");
  assert.deepEqual(Array.from(r.inFlight), [0, 0, 0]);
  assert.equal(r.metrics.cluster.injected_requests, 0);
});

test("precise-prefix-cache end to end: live signals see a prefilled prompt, stale ones see it after the refresh", () => {
  const shared = tokens(48, 30000);
  const reqs = [
    req("request_0", 0, [...shared, ...tokens(16, 50000)], 4),
    req("request_1", 100000, [...shared, ...tokens(16, 60000)], 4),
  ];
  const scoresOf = (delay: number) => {
    const cfg = simConfig({
      params: { cacheSignalDelay: delay },
      cluster: {
        numInstances: 2,
        routing: { policy: "weighted", scorers: [{ name: "precise-prefix-cache", weight: 1 }] },
      },
      trace: { level: "decisions", counterfactualK: 0 },
    });
    return run(cfg, reqs).trace!.routings.map((x) => x.scores);
  };
  // request_0 finds nothing anywhere (tie → instance_0); request_1 finds its three shared blocks there.
  assert.deepEqual(scoresOf(0), [
    { instance_0: 1, instance_1: 1 },
    { instance_0: 1, instance_1: 0 },
  ]);
  // Copies taken at t = 100000 (the admission build of request_1): request_0 completed long before.
  assert.deepEqual(scoresOf(50000), scoresOf(0));
  // Delay beyond request_1's arrival: still the empty copies of t = 0.
  assert.deepEqual(scoresOf(100001), [
    { instance_0: 1, instance_1: 1 },
    { instance_0: 1, instance_1: 1 },
  ]);
});
