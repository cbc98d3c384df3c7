// Unit checks of the instance's parts: the unservable check and the pooled ITL bookkeeping.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Request } from "../../src/core/request.js";
import { blocksToComplete, unservableReason } from "../../src/instance/unservable.js";
import { PooledItl, closeDecodeRun } from "../../src/instance/pooledItl.js";
import type { InstanceConfig } from "../../src/instance/instanceConfig.js";
import { makeRequest } from "../../src/core/workloadRequest.js";

const cfg = (maxModelLen: number): InstanceConfig => ({
  maxRunning: 256,
  maxScheduledTokens: 2048,
  longPrefillThreshold: 0,
  blockSize: 16,
  sloPrefillThresholds: null,
  preemptionPolicy: "tail",
  priorityFloors: false,
  maxModelLen,
});
const mk = (input: number, output: number): Request =>
  new Request(makeRequest("r", 0, new Array<number>(input).fill(1), new Array<number>(output).fill(2)), 0, 16);

test("blocks to complete: the prompt plus every decode position but the last (docs/behavior.md#q17)", () => {
  assert.equal(blocksToComplete(32, 0, 16), 2);
  assert.equal(blocksToComplete(32, 1, 16), 2);
  assert.equal(blocksToComplete(32, 2, 16), 3);
  assert.equal(blocksToComplete(0, 5, 16), Infinity);
});

test("unservable: max-model-len first, then the KV capacity; null when servable", () => {
  assert.equal(
    unservableReason(mk(100, 10), cfg(100), 1000),
    "prompt 100 tokens leave no room for output under max-model-len 100",
  );
  assert.equal(
    unservableReason(mk(100, 0), cfg(100), 1000),
    "prompt 100 tokens leave no room for output under max-model-len 100",
  );
  assert.equal(
    unservableReason(mk(99, 1), cfg(100), 1000),
    null,
    "a prompt one short of the limit leaves room for one token",
  );
  assert.equal(unservableReason(mk(90, 20), cfg(100), 1000), "prompt 90 + output 20 tokens exceed max-model-len 100");
  assert.equal(unservableReason(mk(64, 2), cfg(0), 4), "it needs 5 KV blocks to complete but the instance has 4");
  assert.equal(unservableReason(mk(64, 1), cfg(0), 4), null);
  assert.equal(unservableReason(mk(90, 10), cfg(100), 1000), null);
});

test("pooled ITL: closed and open decode runs and the duplicated final entry", () => {
  const itl = new PooledItl();
  for (let s = 1; s <= 6; s++) itl.record(s, s * 10);
  const r = mk(16, 8);
  // Decode steps 2-3, a step left out (4), then 5-6, completing at step 6 with a duplicate entry.
  r.decodeRunStart = 2;
  closeDecodeRun(r, 4);
  assert.deepEqual(r.decodeRuns, [2, 4]);
  assert.equal(r.decodeRunStart, -1);
  r.decodeRunStart = 5;
  itl.addCompleted(r, 6, true);
  const pooled = new Map<number, number>();
  itl.collect(pooled, 6);
  assert.deepEqual(
    [...pooled],
    [
      [20, 1],
      [30, 1],
      [50, 1],
      [60, 2],
    ],
  );
});
