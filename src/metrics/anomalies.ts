import type { RequestLedger } from "../core/ledger.js";

/**
 * Priority inversions (docs/behavior.md#c11): per instance and SLO class, requests sorted by arrival
 * (ties by ID); count pairs (earlier i, later j) with E2E_i > 2·E2E_j. Counted in O(n log n)
 * with a Fenwick tree over E2E ranks.
 */
export function countPriorityInversions(ledger: RequestLedger, numInstances: number): number {
  const groups = new Map<number, number[]>();
  const registeredPerInstance = new Int32Array(numInstances);
  for (let i = 0; i < ledger.size; i++) {
    if (!ledger.isRegistered(i)) continue;
    const inst = ledger.instance[i]!;
    registeredPerInstance[inst]!++;
    if (!ledger.isCompleted(i)) continue;
    const key = inst * 65536 + ledger.slo[i]!;
    let g = groups.get(key);
    if (g === undefined) groups.set(key, (g = []));
    g.push(i);
  }
  let total = 0;
  for (const [key, g] of groups) {
    const inst = Math.floor(key / 65536);
    if (registeredPerInstance[inst]! < 2) continue;
    g.sort((a, b) => {
      const d = ledger.arrival[a]! - ledger.arrival[b]!;
      if (d !== 0) return d;
      return ledger.compareIds(a, b);
    });
    const vals = Float64Array.from(g, (i) => ledger.e2e[i]!).sort();
    const tree = new Float64Array(vals.length + 1);
    let seen = 0;
    for (const i of g) {
      const e = ledger.e2e[i]!;
      // earlier requests with E2E <= 2e
      const le = upperBound(vals, 2 * e);
      let cnt = 0;
      for (let k = le; k > 0; k -= k & -k) cnt += tree[k]!;
      total += seen - cnt;
      const pos = upperBound(vals, e); // 1-based slot of e
      for (let k = pos; k <= vals.length; k += k & -k) tree[k]!++;
      seen++;
    }
  }
  return total;
}

/** Number of values <= x in a sorted array. */
function upperBound(sorted: Float64Array, x: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** HOL blocking: instances whose mean wait-queue sample exceeds twice the cluster mean. */
export function countHolBlocking(avgQueue: readonly number[]): number {
  const n = avgQueue.length;
  if (n < 2) return 0;
  let s = 0;
  for (const a of avgQueue) s += a;
  const m = s / n;
  if (m <= 0) return 0;
  let c = 0;
  for (const a of avgQueue) if (a > 2 * m) c++;
  return c;
}
