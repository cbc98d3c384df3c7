import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { SnapshotProvider } from "../../src/cluster/snapshot.js";
import type { Instance } from "../../src/instance/instance.js";
import { FC_SEED } from "../helpers/fc.js";

interface Fake {
  queue: number;
  running: number;
  used: number;
}

function fakeInstance(i: number, st: Fake): Instance {
  return {
    id: `instance_${i}`,
    index: i,
    get waitQueue() {
      return { length: st.queue };
    },
    get running() {
      return { length: st.running };
    },
    kv: {
      utilization: () => st.used / 100,
      freeBlocks: () => 100 - st.used,
      cacheHitRate: () => st.used / 200,
      pendingTransferLatency: () => st.queue,
      thrashingRate: () => 0,
    },
  } as unknown as Instance;
}

const fields = (p: SnapshotProvider, t: number): number[][] =>
  p
    .take(t)
    .snapshots.map((s) => [
      s.queueDepth,
      s.batchSize,
      s.kvUtilization,
      s.freeKvBlocks,
      s.cacheHitRate,
      s.inFlight,
      s.pendingTransferLatency,
    ]);

test("a provider told of every change reads what one rereading every instance reads", () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 6 }),
      fc.constantFrom(0, 50),
      fc.array(fc.tuple(fc.nat(5), fc.nat(9), fc.boolean(), fc.integer({ min: 0, max: 30 })), { maxLength: 60 }),
      (n, interval, ops) => {
        const states = Array.from({ length: n }, () => ({ queue: 0, running: 0, used: 0 }));
        const insts = states.map((st, i) => fakeInstance(i, st));
        const flightA = new Int32Array(n);
        const flightB = new Int32Array(n);
        const eager = new SnapshotProvider(insts, flightA, interval);
        const tracked = new SnapshotProvider(insts, flightB, interval);
        tracked.trackChanges();
        let t = 0;
        for (const [i, v, flight, dt] of ops) {
          if (i >= n) continue;
          t += dt;
          if (flight) {
            flightA[i] = v;
            flightB[i] = v;
            tracked.inFlightChanged(i);
          } else {
            states[i]!.queue = v;
            states[i]!.running = v % 3;
            states[i]!.used = v * 7;
            tracked.instanceChanged(i);
          }
          assert.deepEqual(fields(tracked, t), fields(eager, t));
        }
      },
    ),
    { seed: FC_SEED, numRuns: 300 },
  );
});
