// LoRA state of one instance (docs/lora.md): the resident set, the serialized cold load, the pins
// of running requests, the step-time factor and the per-adapter load and eviction counts. The
// instance calls it only when LoRA is active.

import { EV_ADAPTER_LOAD, type EventQueue } from "../engine/eventQueue.js";
import type { Request } from "../core/request.js";
import type { LoraConfig } from "./resolve.js";
import type { LoraTier } from "./config.js";
import { ResidentSet } from "./residentSet.js";

/** Ticks to load an adapter of `rank`: max(1, ⌈base + ⌈rank × footprint / bandwidth⌉⌉). */
export function loadDuration(c: LoraConfig, rank: number): number {
  const transfer = Math.ceil((rank * c.footprintBytesPerRank) / c.loadBandwidthBytesUs);
  return Math.max(1, Math.ceil(c.loadBaseLatencyUs + transfer));
}

/**
 * The tier whose rank is nearest `rank`: an exact match first, ties to the smaller tier rank;
 * null without tiers. `tiers` is sorted by rank.
 */
export function tierFor(tiers: readonly LoraTier[], rank: number): LoraTier | null {
  let best: LoraTier | null = null;
  for (const t of tiers) {
    if (t.rank === rank) return t;
    // Ascending order: a later tier at the same distance has the larger rank and loses the tie.
    if (best === null || Math.abs(t.rank - rank) < Math.abs(best.rank - rank)) best = t;
  }
  return best;
}

/** Step time with the adapter overhead: max(1, ⌊base × (1 + (k6/k7) × A)⌋), A distinct adapters. */
export function scaledStepTime(base: number, distinct: number, tier: LoraTier | null): number {
  if (distinct === 0 || tier === null) return base;
  return Math.max(1, Math.floor(base * (1 + (tier.k6 / tier.k7) * distinct)));
}

export interface AdapterCounts {
  loads: number;
  evictions: number;
}

export class InstanceLora {
  readonly resident: ResidentSet;
  /** The adapter being loaded ("" = none). */
  loading = "";
  /** Per adapter: loads completed and evictions, on this instance. */
  readonly counts = new Map<string, AdapterCounts>();
  /** Sequence numbers of the requests holding a pin, with their adapter. */
  private readonly pinned = new Map<number, string>();
  private readonly distinct = new Set<string>();
  private snapshot: ReadonlySet<string> = new Set();
  private snapshotVersion = 0;
  /** The instance's event queue, where load completions go (bind). */
  private events: EventQueue<Request> | null = null;

  constructor(readonly cfg: LoraConfig) {
    this.resident = new ResidentSet(cfg.capacity);
  }

  /** Attaches the event queue of the instance built with this state. */
  bind(events: EventQueue<Request>): void {
    this.events = events;
  }

  private countsOf(id: string): AdapterCounts {
    let c = this.counts.get(id);
    if (c === undefined) {
      c = { loads: 0, evictions: 0 };
      this.counts.set(id, c);
    }
    return c;
  }

  /**
   * The cold-load gate before batch formation: when no load is in flight and the head of the wait
   * queue needs an adapter that is not resident, make room (evicting the least recent unpinned
   * adapter) and start loading it. Every slot pinned: nothing this step.
   */
  gate(head: Request, now: number): void {
    const id = head.adapter;
    if (id === "" || this.loading !== "" || head.remoteKv || this.resident.has(id)) return;
    if (this.resident.isFull()) {
      const victim = this.resident.evictLru();
      if (victim === null) return;
      this.countsOf(victim).evictions++;
    }
    this.loading = id;
    this.events!.push(now + loadDuration(this.cfg, this.cfg.adapters.get(id)!.rank), EV_ADAPTER_LOAD, null);
  }

  /** The AdapterLoadCompletion event: the adapter becomes resident. */
  loaded(): void {
    const id = this.loading;
    // The gate made room; a slot cannot have been taken since (only loads add adapters).
    this.resident.insert(id);
    this.countsOf(id).loads++;
    this.loading = "";
  }

  /** Batch formation, pass 2: a waiting request may start only with its adapter resident. */
  admits(r: Request): boolean {
    return r.adapter === "" || this.resident.has(r.adapter);
  }

  /** Requests that entered the running batch: their adapter is touched and pinned once per request. */
  onAdmitted(admitted: readonly Request[]): void {
    for (let i = 0; i < admitted.length; i++) {
      const r = admitted[i]!;
      if (r.adapter === "") continue;
      this.resident.touch(r.adapter);
      if (this.pinned.has(r.seq)) continue;
      this.resident.pin(r.adapter);
      this.pinned.set(r.seq, r.adapter);
    }
  }

  /** The request left (completion, timeout, eviction): its pin, if any, is released. */
  release(r: Request): void {
    const id = this.pinned.get(r.seq);
    if (id === undefined) return;
    this.pinned.delete(r.seq);
    this.resident.unpin(id);
  }

  /** Requests holding a pin. */
  get pinnedRequests(): number {
    return this.pinned.size;
  }

  /** The step's duration with the overhead of the distinct adapters among the scheduled requests. */
  stepTime(batch: readonly Request[], base: number): number {
    const tiers = this.cfg.tiers;
    if (tiers.length === 0) return base;
    const distinct = this.distinct;
    let maxRank = 0;
    for (let i = 0; i < batch.length; i++) {
      const r = batch[i]!;
      if (r.adapter === "" || r.numNewTokens === 0 || distinct.has(r.adapter)) continue;
      distinct.add(r.adapter);
      const rank = this.cfg.adapters.get(r.adapter)!.rank;
      if (rank > maxRank) maxRank = rank;
    }
    const a = distinct.size;
    if (a === 0) return base;
    distinct.clear();
    return scaledStepTime(base, a, tierFor(tiers, maxRank));
  }

  /** The resident IDs as of the last change (routing snapshots hold it until their refresh). */
  residentIds(): ReadonlySet<string> {
    if (this.snapshotVersion !== this.resident.version) {
      this.snapshot = new Set(this.resident.ids());
      this.snapshotVersion = this.resident.version;
    }
    return this.snapshot;
  }
}
