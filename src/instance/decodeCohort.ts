import type { Request } from "../core/request.js";
import type { PooledItl } from "./pooledItl.js";
import type { KvCache } from "../kv/kvCache.js";
import { grownInt32 } from "../core/typedArrays.js";
import { InvariantError } from "../util/errors.js";

/** A member is due at most this many steps after it entered (it may always leave early). */
export const MAX_AHEAD = 64;

/**
 * Steps from the one a plain decode just took (at PI `pi`, its last block holding `tailFill`
 * tokens) to its next step that does more than add a token: the one where its last KV block fills
 * (when others must see the filling), the one that needs a new block, or its last; at most
 * MAX_AHEAD. A result above 1 lets it into the cohort.
 */
export function stepsToDue(r: Request, pi: number, tailFill: number, blockSize: number, kv: KvCache): number {
  let toKv = tailFill >= blockSize ? 1 : blockSize - tailFill;
  if (tailFill < blockSize && kv.mayFillLater(r)) toKv++;
  const toDone = r.inputLen + r.outputLen - 1 - pi;
  const k = toKv < toDone ? toKv : toDone;
  return k < MAX_AHEAD ? k : MAX_AHEAD;
}
/** Due-step buckets: a ring longer than MAX_AHEAD. */
const RING = 128;

/**
 * Requests in plain decode that the step leaves out of its batch (docs/architecture.md "The step
 * without visiting every request"). In a step where every request gets its token, such a request
 * only adds one token: PI, computed tokens, tail fill and ITL count go up by one and the step's
 * ITL value is added to its ITL sum. A member stays out until `dueStep`, at the latest its first
 * step that does more (fills or needs a KV block, or completes), and is brought up to date when it
 * leaves. The latency model sees members through their count and PI sum.
 */
export class DecodeCohort {
  /** Members. */
  count = 0;
  /** Σ PI of the members at the start of the coming step. */
  piSum = 0;
  /**
   * Members by due step modulo RING, in the order they entered: a linked list of slots per bucket
   * (head and tail slot, -1 when empty; nextSlot links a bucket's slots). Slots, not an array per
   * bucket: an instance holds a handful of arrays instead of 128, which a cluster of thousands of
   * instances feels in every garbage collection.
   */
  private readonly head = new Int32Array(RING).fill(-1);
  private readonly tail = new Int32Array(RING).fill(-1);
  private members: (Request | null)[] = [];
  private nextSlot = new Int32Array(8);
  /** Slots given back, reused first; slots below `slots` have been used. */
  private freeSlots = new Int32Array(8);
  private nFree = 0;
  private slots = 0;
  /** The slots of the members due at the step passDue() looks at. */
  private dueSlots = new Int32Array(8);

  /**
   * `kv`: the store of members whose block-filling token may come while they are out
   * (Instance.enroll); such a member's last block is filled when it leaves with it full.
   */
  constructor(
    private readonly itl: PooledItl,
    private readonly kv: KvCache | null = null,
    private readonly blockSize = 0,
  ) {}

  /** Adds r, up to date after step `step`, due at step `dueStep` (step + 1 < dueStep ≤ step + MAX_AHEAD). */
  enter(r: Request, step: number, dueStep: number): void {
    r.steady = true;
    r.syncStep = step;
    r.dueStep = dueStep;
    this.count++;
    this.piSum += r.pi;
    let slot: number;
    if (this.nFree > 0) {
      slot = this.freeSlots[--this.nFree]!;
      this.members[slot] = r;
    } else {
      slot = this.slots++;
      if (slot === this.nextSlot.length) this.grow();
      this.members.push(r);
    }
    this.link(slot, dueStep);
  }

  /** Appends slot to the bucket of `dueStep`. */
  private link(slot: number, dueStep: number): void {
    this.nextSlot[slot] = -1;
    const b = dueStep & (RING - 1);
    const t = this.tail[b]!;
    if (t < 0) this.head[b] = slot;
    else this.nextSlot[t] = slot;
    this.tail[b] = slot;
  }

  private grow(): void {
    const cap = this.nextSlot.length * 2;
    this.nextSlot = grownInt32(this.nextSlot, cap);
    this.freeSlots = grownInt32(this.freeSlots, cap);
  }

  /** Whether a member is due at `step` (members are due at most MAX_AHEAD < RING steps ahead). */
  dueAt(step: number): boolean {
    return this.head[step & (RING - 1)]! >= 0;
  }

  /**
   * Takes the members due at `step` through it without their leaving, when the full step would
   * only bring them up to date, place their token's KV (a fresh block for those whose last block is
   * full) and let them in again (docs/architecture.md "Steady steps"): none completes or is due at
   * the next step, there is a free block for each that needs one, and the token budget
   * `maxTokens` holds every member. Each is then up to date after step − 1 with its token's KV
   * placed and its tail fill one short, the step's token being counted when it leaves. False,
   * with nothing changed, otherwise.
   */
  passDue(step: number, maxTokens: number): boolean {
    const kv = this.kv;
    if (kv === null || this.count > maxTokens) return false;
    const n = this.listDue(step);
    if (!this.canPass(step, n, kv.freeBlocks())) return false;
    const b = step & (RING - 1);
    this.head[b] = -1;
    this.tail[b] = -1;
    const slots = this.dueSlots;
    for (let i = 0; i < n; i++) this.sync(this.members[slots[i]!]!, step);
    // The full step places their KV in batch order, and lets them in again in that order.
    this.sortDue(n);
    for (let i = 0; i < n; i++) this.placeToken(slots[i]!, step, kv);
    return true;
  }

  /** Lists the slots of the members due at `step` in dueSlots, in bucket order; returns their count. */
  private listDue(step: number): number {
    let n = 0;
    for (let s = this.head[step & (RING - 1)]!; s >= 0; s = this.nextSlot[s]!) {
      if (n === this.dueSlots.length) this.dueSlots = grownInt32(this.dueSlots, n * 2);
      this.dueSlots[n++] = s;
    }
    return n;
  }

  /** Whether the n members listed by listDue() can be taken through step `step` by passDue(). */
  private canPass(step: number, n: number, freeBlocks: number): boolean {
    const bs = this.blockSize;
    let blocks = 0;
    for (let i = 0; i < n; i++) {
      const r = this.members[this.dueSlots[i]!]!;
      const k = step - 1 - r.syncStep;
      const fill = r.tailFill + k;
      if (fill >= bs) blocks++;
      // After the step its last block holds one token more, or its token alone in a fresh block;
      // stepsToDue() then gives at least the lesser of these two bounds.
      const after = fill >= bs ? 1 : fill + 1;
      const toKv = after >= bs ? 1 : bs - after;
      const toDone = r.inputLen + r.outputLen - 1 - (r.pi + k + 1);
      if (toKv < 2 || toDone < 2) return false;
    }
    return blocks <= freeBlocks;
  }

  /** Insertion sort of dueSlots[0 .. n) by their members' batch order. */
  private sortDue(n: number): void {
    const slots = this.dueSlots;
    for (let i = 1; i < n; i++) {
      const s = slots[i]!;
      const key = this.members[s]!.batchOrder;
      let j = i - 1;
      while (j >= 0 && this.members[slots[j]!]!.batchOrder > key) {
        slots[j + 1] = slots[j]!;
        j--;
      }
      slots[j + 1] = s;
    }
  }

  /**
   * What the step does for the member in slot s, up to date: its token's KV as pass 1 places it
   * (BatchFormation.scheduleRunning), then the cohort takes it in again (Instance.enroll).
   */
  private placeToken(s: number, step: number, kv: KvCache): void {
    const r = this.members[s]!;
    const bs = this.blockSize;
    if (r.tailFill < bs) kv.appendDecodeToken(r, r.pi);
    else if (!kv.allocate(r, r.pi, r.pi + 1, 0))
      throw new InvariantError(`decode cohort: no KV block for ${r.id} though one was free`);
    const due = step + stepsToDue(r, r.pi + 1, r.tailFill, bs, kv);
    r.tailFill--;
    r.dueStep = due;
    this.link(s, due);
  }

  /** After every step: each member advanced by one token. */
  endStep(): void {
    this.piSum += this.count;
  }

  /**
   * Removes the members due at `step`, brought up to date to its start, into out[0 .. result);
   * out is written by index and never shortened (emptying an array frees its storage, and the
   * next step would allocate it again).
   */
  takeDue(step: number, out: Request[]): number {
    const b = step & (RING - 1);
    let s = this.head[b]!;
    let k = 0;
    while (s >= 0) {
      const r = this.release(s);
      this.leave(r, step);
      out[k++] = r;
      s = this.nextSlot[s]!;
    }
    this.head[b] = -1;
    this.tail[b] = -1;
    return k;
  }

  /**
   * Removes every member, brought up to date to the start of `step`. A bucket holds members or is
   * empty (head -1), so the walk stops once no member is left.
   */
  drain(step: number): void {
    for (let b = 0; b < RING && this.count > 0; b++) {
      for (let s = this.head[b]!; s >= 0; s = this.nextSlot[s]!) this.leave(this.release(s), step);
      this.head[b] = -1;
      this.tail[b] = -1;
    }
  }

  /** Empties slot s and returns the member it held. */
  private release(s: number): Request {
    const r = this.members[s]!;
    this.members[s] = null;
    this.freeSlots[this.nFree++] = s;
    return r;
  }

  private leave(r: Request, step: number): void {
    this.sync(r, step);
    r.steady = false;
    this.count--;
    this.piSum -= r.pi;
  }

  /** Brings member r up to date to the start of `step`. */
  private sync(r: Request, step: number): void {
    const k = step - 1 - r.syncStep;
    if (k > 0) {
      r.itlSum = this.itl.addValues(r.itlSum, r.syncStep + 1, step - 1);
      r.pi += k;
      r.computed += k;
      r.tailFill += k;
      r.itlCount += k;
      // Only a member let out past its filling token comes back with its last block full.
      if (r.tailFill === this.blockSize && this.kv !== null) this.kv.fillLastBlock(r);
    }
    r.numNewTokens = 1;
    r.syncStep = step - 1;
  }
}

/** Insertion sort of a[0 .. n): requests due together mostly entered the cohort together, in batch order. */
export function sortByBatchOrder(a: Request[], n: number): void {
  for (let i = 1; i < n; i++) {
    const r = a[i]!;
    const key = r.batchOrder;
    let j = i - 1;
    while (j >= 0 && a[j]!.batchOrder > key) {
      a[j + 1] = a[j]!;
      j--;
    }
    a[j + 1] = r;
  }
}

/** `a` (in batch order) and due[0 .. nDue) merged in batch order into `out`, which is returned. */
export function mergeByBatchOrder(a: readonly Request[], due: Request[], nDue: number, out: Request[]): Request[] {
  sortByBatchOrder(due, nDue);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < a.length || j < nDue) {
    if (j >= nDue || (i < a.length && a[i]!.batchOrder < due[j]!.batchOrder)) out[k++] = a[i++]!;
    else out[k++] = due[j++]!;
  }
  if (out.length !== k) out.length = k;
  return out;
}
