import { test } from "node:test";
import assert from "node:assert/strict";
import { ClusterSimulator } from "../../src/cluster/cluster.js";
import {
  instanceParts,
  type Capability,
  type ClusterExtension,
  type ClusterPort,
  type ExtensionDescriptor,
  type InstanceBuild,
  type RankRange,
} from "../../src/cluster/extension.js";
import { createKvStore } from "../../src/kv/createKvStore.js";
import { simConfig } from "../helpers/sim.js";
import type { AdmissionPolicy } from "../../src/cluster/admission/admission.js";
import type { RoutingPolicy } from "../../src/cluster/routing/routing.js";
import { RequestLedger } from "../../src/core/ledger.js";
import type { Request } from "../../src/core/request.js";
import type { Instance } from "../../src/instance/instance.js";
import { ArrayRequestSource, makeRequest, type WorkloadRequest } from "../../src/core/workloadRequest.js";
import { DEFAULT_SLO_PARAMS } from "../../src/policy/sloTiers.js";
import { silentLogger } from "../../src/util/log.js";
import { PD_EXTENSION } from "../../src/pd/descriptor.js";
import { CONTROL_PLANE_EXTENSION } from "../../src/gateway/controlPlane.js";
import { AUTOSCALE_EXTENSION } from "../../src/autoscale/controller.js";

const admitAll: AdmissionPolicy = { name: "always-admit", reason: "", admit: () => true };
const noRouting: RoutingPolicy = {
  name: "none",
  route: () => {
    throw new Error("the cluster routed a request an extension should have routed");
  },
};

/** A cluster without instances over `requests`. */
function cluster(requests: WorkloadRequest[] = []): ClusterSimulator {
  const opts = {
    horizon: Infinity,
    admissionLatency: 0,
    routingLatency: 0,
    snapshotRefreshInterval: 0,
    blockSize: 16,
    priorityBridge: "none" as const,
    slo: DEFAULT_SLO_PARAMS,
    trace: null,
  };
  return new ClusterSimulator(
    [],
    admitAll,
    noRouting,
    new ArrayRequestSource(requests),
    new RequestLedger(),
    opts,
    silentLogger,
  );
}

interface Seen {
  t: number;
  rank: number;
}

/** A test extension that schedules `plan` when attached and records the events it receives. */
class Recorder implements ClusterExtension {
  readonly descriptor: ExtensionDescriptor;
  readonly seen: Seen[] = [];
  port: ClusterPort | null = null;

  constructor(
    name: string,
    ranks: RankRange | null,
    capabilities: Capability[] = [],
    private readonly plan: Seen[] = [],
  ) {
    this.descriptor = { name, ranks, capabilities };
  }

  attach(port: ClusterPort): void {
    this.port = port;
    for (const e of this.plan) port.schedule(e.t, e.rank, null);
  }

  onEvent(rank: number, _req: Request | null, clock: number): void {
    this.seen.push({ t: clock, rank });
  }
}

test("an extension receives exactly the events of its ranks, in (time, rank) order", () => {
  const a = new Recorder(
    "a",
    { first: 10, last: 11 },
    [],
    [
      { t: 5, rank: 11 },
      { t: 5, rank: 10 },
      { t: 3, rank: 11 },
    ],
  );
  const b = new Recorder(
    "b",
    { first: 12, last: 12 },
    [],
    [
      { t: 5, rank: 12 },
      { t: 1, rank: 12 },
    ],
  );
  const c = cluster();
  c.attach(a);
  c.attach(b);
  c.run();
  assert.deepEqual(a.seen, [
    { t: 3, rank: 11 },
    { t: 5, rank: 10 },
    { t: 5, rank: 11 },
  ]);
  assert.deepEqual(b.seen, [
    { t: 1, rank: 12 },
    { t: 5, rank: 12 },
  ]);
});

test("an extension cannot schedule a rank outside its range", () => {
  const c = cluster();
  assert.throws(
    () => c.attach(new Recorder("a", { first: 10, last: 11 }, [], [{ t: 1, rank: 12 }])),
    /"a" scheduled rank 12 outside its ranks/,
  );
  assert.throws(() => cluster().attach(new Recorder("b", null, [], [{ t: 1, rank: 10 }])), /"b" scheduled rank 10/);
});

test("overlapping rank ranges are refused, naming both extensions", () => {
  const c = cluster();
  c.attach(new Recorder("first-one", { first: 10, last: 12 }));
  assert.throws(
    () => c.attach(new Recorder("second-one", { first: 12, last: 14 })),
    (e: Error) =>
      e.message.includes('"first-one" (ranks 10–12)') &&
      e.message.includes('"second-one" (ranks 12–14)') &&
      /overlap/.test(e.message),
  );
  // Adjacent ranges are fine.
  c.attach(new Recorder("third-one", { first: 13, last: 14 }));
});

test("rank ranges may not take arrival, admission or routing ranks", () => {
  for (const first of [0, 1, 2]) {
    assert.throws(() => cluster().attach(new Recorder("low", { first, last: 5 })), /"low": ranks .* leave 3–31/);
  }
  assert.throws(() => cluster().attach(new Recorder("high", { first: 30, last: 40 })), /"high": ranks 30–40 leave/);
  assert.throws(() => cluster().attach(new Recorder("empty", { first: 6, last: 5 })), /"empty": bad rank range/);
});

test("the built-in extensions' rank ranges are disjoint", () => {
  const c = cluster();
  for (const d of [PD_EXTENSION, CONTROL_PLANE_EXTENSION, AUTOSCALE_EXTENSION]) {
    c.attach({ descriptor: d, attach: () => undefined, onEvent: () => undefined, ...stubs(d) });
  }
});

/** The methods a descriptor's capabilities call for, doing nothing. */
function stubs(d: ExtensionDescriptor): Partial<ClusterExtension> {
  return {
    route: () => undefined,
    ...(d.capabilities.includes("admits")
      ? {
          onArrival: () => undefined,
          admit: () => ({ admitted: true, reason: "", queued: false }),
          onRouted: () => undefined,
        }
      : {}),
    ...(d.capabilities.includes("timed")
      ? {
          nextTime: () => Infinity,
          nextIsEarly: () => false,
          runNext: () => undefined,
          afterInstanceEvents: () => undefined,
        }
      : {}),
  };
}

class Router extends Recorder {
  readonly routed: string[] = [];
  route(req: Request): void {
    this.routed.push(req.id);
  }
}

test("two extensions that both declare routes are refused, naming both", () => {
  const c = cluster();
  c.attach(new Router("pd-like", null, ["routes"]));
  assert.throws(
    () => c.attach(new Router("other-router", null, ["routes"])),
    /"pd-like" and "other-router" both declare "routes"/,
  );
});

test("an extension declaring a capability without its methods is refused", () => {
  assert.throws(
    () => cluster().attach(new Recorder("no-route", null, ["routes"])),
    /"no-route" declares "routes" but has no route/,
  );
  assert.throws(() => cluster().attach(new Recorder("no-admit", null, ["admits"])), /"no-admit" declares "admits"/);
  assert.throws(() => cluster().attach(new Recorder("no-timeline", null, ["timed"])), /"no-timeline" declares "timed"/);
});

test("a routing extension takes every routing decision", () => {
  const r = new Router("router", null, ["routes"]);
  const c = cluster([makeRequest("x", 0, [1, 2], [3]), makeRequest("y", 7, [1], [2])]);
  c.attach(r);
  c.run();
  assert.deepEqual(r.routed, ["x", "y"]);
});

test("dispatch to routing and eviction are only for extensions that declare admits and evicts", () => {
  const plain = new Recorder("plain", null);
  const evictor = new Recorder("evictor", null, ["evicts"]);
  const c = cluster();
  c.attach(plain);
  c.attach(evictor);
  const req = { instance: -1 } as Request;
  assert.throws(() => plain.port!.evictFromInstance(req), /"plain" evicts without declaring "evicts"/);
  assert.equal(evictor.port!.evictFromInstance(req), false, "a request on no instance is not there to evict");
  assert.throws(() => plain.port!.scheduleRouting(req, 0), /"plain" dispatches to routing without declaring "admits"/);
});

test("changing the fleet is only for the extension that declares fleet", () => {
  const plain = new Recorder("plain", null);
  const owner = new Recorder("owner", null, ["fleet"]);
  const c = cluster();
  c.attach(plain);
  c.attach(owner);
  const misplaced = { index: 3, id: "late" } as Instance;
  const refusal = /"plain" changes the fleet without declaring "fleet"/;
  assert.throws(() => plain.port!.addInstance(misplaced), refusal);
  assert.throws(() => plain.port!.setRoutable(0, true), refusal);
  assert.throws(() => plain.port!.redirectWaiting(0, 0), refusal);
  // The owner's call reaches the cluster, which checks the index an added instance takes.
  assert.throws(() => owner.port!.addInstance(misplaced), /instance late cannot take index 0/);
  assert.throws(
    () => c.attach(new Recorder("second-owner", null, ["fleet"])),
    /"owner" and "second-owner" both declare "fleet"/,
  );
});

test("instance extensions contribute their part of every instance's configuration, others none", () => {
  const withPart: ClusterExtension = {
    descriptor: { name: "parts", ranks: null, capabilities: ["instances"] },
    attach: () => undefined,
    instanceConfig: (k, build) => ({ maxModelLen: 100 + k, oneStepChain: build.decodes }),
  };
  const undeclared: ClusterExtension = { ...withPart, descriptor: { name: "quiet", ranks: null, capabilities: [] } };
  const cfg = simConfig();
  const build = (decodes: boolean): InstanceBuild => ({
    kv: createKvStore(cfg.kv),
    latency: cfg.latency(),
    decodes,
  });
  assert.deepEqual(instanceParts([withPart, undeclared], 3, build(true)), { maxModelLen: 103, oneStepChain: true });
  assert.deepEqual(instanceParts([withPart], 4, build(false)), { maxModelLen: 104, oneStepChain: false });
  assert.deepEqual(instanceParts([undeclared], 3, build(true)), {});
  assert.throws(
    () => cluster().attach({ descriptor: withPart.descriptor, attach: () => undefined }),
    /"parts" declares "instances" but has no instanceConfig/,
  );
});
