// Node pools (docs/autoscaling.md "Node pools"): first-fit placement, provisioning within
// max_nodes, release down to min_nodes, and the inventory invariant.

import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  NODE_READY,
  NODE_RELEASED,
  NodePools,
  delayTicks,
  type NodePoolSpec,
  type Placement,
} from "../../src/infra/nodePools.js";

function spec(name: string, gpuType: string, gpus: number, initial: number, min: number, max: number): NodePoolSpec {
  return {
    name,
    gpuType,
    gpusPerNode: gpus,
    gpuMemoryGib: 80,
    initialNodes: initial,
    minNodes: min,
    maxNodes: max,
    provisioningDelay: { mean: 5, stddev: 0 },
    costPerHour: 1,
  };
}

test("first fit: pools in order, Ready nodes by index, lowest free GPUs", () => {
  const pools = new NodePools([spec("a", "A100", 2, 1, 0, 2), spec("h", "H100", 4, 1, 0, 1)], () => 0);
  const p1 = pools.place("i1", 1, "")!;
  const p2 = pools.place("i2", 2, "")!;
  assert.equal(p1.node.id, "a-0");
  assert.deepEqual(p1.gpus, [0]);
  assert.equal(p2.node.id, "h-0", "a-0 has one GPU left");
  assert.deepEqual(p2.gpus, [0, 1]);
  assert.equal(pools.place("i3", 1, "H100")!.node.id, "h-0");
  assert.equal(pools.place("i4", 4, ""), null);
});

test("provisioning respects max_nodes and the delay; release keeps min_nodes", () => {
  const pools = new NodePools([spec("h", "H100", 1, 1, 1, 2)], (d) => delayTicks(d, () => 0));
  const first = pools.place("i0", 1, "")!;
  const node = pools.provision(1, "H100", 100)!;
  assert.equal(node.id, "h-1");
  assert.equal(node.readyAt, 100 + 5e6);
  assert.equal(pools.provision(1, "H100", 100), null, "max_nodes 2");
  assert.equal(pools.place("i1", 1, ""), null, "not Ready yet");
  pools.markReady(node);
  const second = pools.place("i1", 1, "")!;
  pools.release(second, 200);
  assert.equal(node.state, NODE_RELEASED, "above min_nodes: released");
  pools.release(first, 300);
  assert.equal(first.node.state, NODE_READY, "min_nodes 1 keeps the last node");
  assert.ok(pools.provision(1, "H100", 400) !== null, "a released node frees room under max_nodes");
});

test("delay samples: mean without stddev, negative and non-finite become 0", () => {
  assert.equal(
    delayTicks({ mean: 2.5, stddev: 0 }, () => 9),
    2.5e6,
  );
  assert.equal(
    delayTicks({ mean: 1, stddev: 1 }, () => -3),
    0,
  );
  assert.equal(
    delayTicks({ mean: 1, stddev: 1 }, () => 0.5),
    1.5e6,
  );
  assert.equal(
    delayTicks({ mean: Infinity, stddev: 0 }, () => 0),
    0,
  );
});

test("inventory: allocated + free = total on every node, through any sequence", () => {
  const op = fc.oneof(
    fc.record({ kind: fc.constant("place" as const), tp: fc.integer({ min: 1, max: 4 }) }),
    fc.record({ kind: fc.constant("release" as const), k: fc.nat() }),
    fc.record({ kind: fc.constant("provision" as const), tp: fc.integer({ min: 1, max: 4 }) }),
  );
  fc.assert(
    fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
      const pools = new NodePools([spec("a", "A", 2, 1, 1, 3), spec("b", "B", 4, 0, 0, 2)], () => 0);
      const held: Placement[] = [];
      let t = 0;
      for (const o of ops) {
        t++;
        if (o.kind === "place") {
          const p = pools.place(`i${t}`, o.tp, "");
          if (p !== null) held.push(p);
        } else if (o.kind === "release" && held.length > 0) {
          pools.release(held.splice(o.k % held.length, 1)[0]!, t);
        } else if (o.kind === "provision") {
          const n = pools.provision(o.tp, "", t);
          if (n !== null) pools.markReady(n);
        }
        pools.checkInventory();
        pools.specs.forEach((s, p) => {
          const live = pools.nodes[p]!.filter((n) => n.state !== NODE_RELEASED).length;
          assert.ok(live <= s.maxNodes && live >= Math.min(s.minNodes, s.initialNodes));
        });
        for (const h of held)
          assert.equal(new Set(h.gpus.map((g) => h.node.holders[g])).size, 1, "one holder per placement");
      }
    }),
  );
});
