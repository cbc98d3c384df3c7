// Hash ids become prefix-cache hits exactly (docs/traces.md "Content and sharing"): a request
// sharing its first k ids with one still cached finds k × trace-block-size tokens, at any KV block
// size that divides the trace block size, with private blocks on or off.
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { KvStore } from "../../../src/kv/kvStore.js";
import { Request } from "../../../src/core/request.js";
import { mooncakeWorkload } from "../../../src/workload/mooncake/workload.js";
import type { WorkloadRequest } from "../../../src/core/workloadRequest.js";
import { FC_SEED } from "../../helpers/fc.js";
import { ids, traceFile, type Line } from "./helpers.js";

function requests(lines: Line[], blockSize: number): WorkloadRequest[] {
  const file = traceFile(lines);
  const { source } = mooncakeWorkload(
    { path: file, block_size: blockSize, time_scale: 1, concurrency: 0 },
    { horizon: Infinity, maxRequests: 0, seed: 1n, timeoutUs: 0 },
  );
  const out: WorkloadRequest[] = [];
  for (let r = source.next(); r !== null; r = source.next()) out.push(r);
  return out;
}

/** Tokens of b's prompt found cached after a's whole prompt was allocated. */
function hitTokens(a: WorkloadRequest, b: WorkloadRequest, bs: number, privateBlocks: boolean): number {
  const kv = new KvStore(100000, bs, privateBlocks);
  const ra = new Request(a, 0, bs);
  assert.ok(kv.allocate(ra, 0, a.inputLen, 0));
  return kv.cachedPrefix(new Request(b, 1, bs)) * bs;
}

test("two requests sharing k hash ids: k × trace block size tokens hit (property)", () => {
  fc.assert(
    fc.property(
      fc.constantFrom(512, 256, 64),
      fc.integer({ min: 0, max: 6 }),
      fc.integer({ min: 0, max: 4 }),
      fc.integer({ min: 1, max: 4 }),
      fc.integer({ min: 0, max: 3 }),
      fc.boolean(),
      (tb, k, extraA, extraB, bsShift, privateBlocks) => {
        const bs = [16, 32, tb, 8][bsShift]!;
        // A: the k shared ids, then its own; B: the same k, then its own (its prompt goes on).
        const idsA = [...ids(1000, k), ...ids(5000, extraA)];
        const idsB = [...ids(1000, k), ...ids(9000, extraB)];
        if (idsA.length === 0) return;
        const lenA = idsA.length * tb - (tb >> 2);
        const lenB = idsB.length * tb - 3;
        const [a, b] = requests(
          [
            { timestamp: 0, input_length: lenA, output_length: 5, hash_ids: idsA },
            { timestamp: 10, input_length: lenB, output_length: 5, hash_ids: idsB },
          ],
          tb,
        );
        // When A's prompt ends inside the k-th id (no id of its own), only its full blocks are cached.
        const want = Math.min(k * tb, Math.floor(lenA / bs) * bs);
        assert.equal(hitTokens(a!, b!, bs, privateBlocks), want);
      },
    ),
    { seed: FC_SEED, numRuns: 60 },
  );
});

test("a KV block size that does not divide the trace block size: hits end at the last whole KV block", () => {
  const [a, b] = requests(
    [
      { timestamp: 0, input_length: 2048, output_length: 5, hash_ids: [1, 2, 3, 4] },
      { timestamp: 1, input_length: 2048, output_length: 5, hash_ids: [1, 2, 3, 9] },
    ],
    512,
  );
  // 3 × 512 = 1536 shared tokens; 100-token blocks: 15 whole blocks (the 16th straddles id 4 vs 9).
  assert.equal(hitTokens(a!, b!, 100, true), 1500);
});

test("equal ids share content across the trace, different ids never do", () => {
  const [a, b, c] = requests(
    [
      { timestamp: 0, input_length: 1024, output_length: 1, hash_ids: [7, 8] },
      { timestamp: 1, input_length: 1024, output_length: 1, hash_ids: [7, 8] },
      { timestamp: 2, input_length: 1024, output_length: 1, hash_ids: [70, 80] },
    ],
    512,
  );
  const ta = a!.tokenSeq.toArray().subarray(0, 1024);
  assert.deepEqual(b!.tokenSeq.toArray().subarray(0, 1024), ta);
  const tc = c!.tokenSeq.toArray().subarray(0, 1024);
  let same = 0;
  for (let i = 0; i < 1024; i++) if (tc[i] === ta[i]) same++;
  assert.ok(same < 5, `${same} equal token IDs between different hash ids`);
  // Outputs are each request's own draws.
  assert.notEqual(a!.tokenSeq.toArray()[1024], b!.tokenSeq.toArray()[1024]);
});

test("ids no other line holds make the rest of a prompt private; shared ones stay findable", () => {
  const [a, b] = requests(
    [
      { timestamp: 0, input_length: 1536, output_length: 1, hash_ids: [1, 2, 3] },
      { timestamp: 1, input_length: 1536, output_length: 1, hash_ids: [1, 5, 6] },
    ],
    512,
  );
  assert.equal(a!.tokenSeq.privateFrom, 512);
  assert.equal(b!.tokenSeq.privateFrom, 512);
  // Ids beyond the dense counter are counted by sorting: the same answer.
  const big = 2 ** 40;
  const [d, e] = requests(
    [
      { timestamp: 0, input_length: 1536, output_length: 1, hash_ids: [big + 1, big + 2, big + 3] },
      { timestamp: 1, input_length: 1536, output_length: 1, hash_ids: [big + 1, big + 2, 6] },
    ],
    512,
  );
  assert.equal(d!.tokenSeq.privateFrom, 1024);
  assert.equal(e!.tokenSeq.privateFrom, 1024);
  const [c] = requests([{ timestamp: 0, input_length: 100, output_length: 4 }], 512);
  assert.equal(c!.tokenSeq.privateFrom, 0);
  assert.equal(c!.tokenSeq.length, 104);
});
