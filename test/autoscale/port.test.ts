// The autoscaler reaches the cluster only through the port it is attached with
// (docs/architecture.md "Cluster extensions"): nothing before attach, its fleet changes through the
// port's fleet operations after.

import { test } from "node:test";
import assert from "node:assert/strict";
import { AutoscaleController, AUTOSCALE_EXTENSION } from "../../src/autoscale/controller.js";
import { autoscaleSettings } from "../../src/autoscale/settings.js";
import type { ClusterPort } from "../../src/cluster/extension.js";
import type { Instance } from "../../src/instance/instance.js";
import { ACTIVE } from "../../src/infra/lifecycle.js";
import { silentLogger } from "../../src/util/log.js";

function controller(): AutoscaleController {
  const settings = autoscaleSettings({ autoscaler: { interval_us: 1000 } }, undefined);
  assert.ok(settings !== null);
  const ctx = {
    build: (): Instance => assert.fail("no instance is built at startup"),
    log: silentLogger,
    tp: 1,
    hardware: "H100",
    model: "m",
    seed: 1n,
    horizon: Infinity,
    blockSize: 16,
    replicaCapacityTokens: 16000,
  };
  return new AutoscaleController(ctx, settings);
}

const unused = (): never => assert.fail("the autoscaler's startup uses only the fleet operations");

/** A port over `instances` that records the fleet operations it is asked for. */
function recordingPort(instances: Instance[], calls: string[]): ClusterPort {
  return {
    instances,
    inFlight: new Int32Array(instances.length),
    trace: null,
    takeState: unused,
    routerState: unused,
    schedule: unused,
    scheduleRouting: unused,
    routeTo: unused,
    countRouted: unused,
    enqueueDirect: unused,
    addInFlight: unused,
    instanceChanged: unused,
    applyPriority: unused,
    rejectAtRouting: unused,
    nextSeq: unused,
    evictFromInstance: unused,
    addInstance: unused,
    setRoutable: (i, routable) => calls.push(`setRoutable ${i} ${routable}`),
    redirectWaiting: unused,
  };
}

test("the autoscaler declares the fleet it changes", () => {
  assert.deepEqual([...AUTOSCALE_EXTENSION.capabilities].sort(), ["fleet", "timed"]);
});

test("the autoscaler starts when attached, and places its startup instance through the port", () => {
  const c = controller();
  assert.throws(() => c.start(), /the autoscaler is not attached to a cluster/);
  const inst = { index: 0, id: "instance_0", lifecycle: 0 } as Instance;
  const calls: string[] = [];
  c.attach(recordingPort([inst], calls));
  // Warm start: Scheduling (not routable), then Active (routable) at once.
  assert.deepEqual(calls, ["setRoutable 0 false", "setRoutable 0 true"]);
  assert.equal(inst.lifecycle, ACTIVE);
  assert.equal(c.fleet.counts().routable, 1);
});
