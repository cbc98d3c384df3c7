import type { Instance } from "../instance/instance.js";

/** What the router sees of one instance (docs/behavior.md "Snapshots and signal freshness"). */
export class InstanceSnapshot {
  queueDepth = 0;
  batchSize = 0;
  kvUtilization = 0;
  freeKvBlocks = 0;
  cacheHitRate = 0;
  inFlight = 0;
  pendingTransferLatency = 0;
  kvThrashingRate = 0;
  constructor(
    readonly id: string,
    readonly index: number,
  ) {}

  get effectiveLoad(): number {
    return this.queueDepth + this.batchSize + this.inFlight;
  }
}

/** Snapshots in index order plus the decision clock. Reused between decisions: do not retain. */
export interface RouterState {
  readonly snapshots: readonly InstanceSnapshot[];
  clock: number;
}

/**
 * Builds router states with immediate or periodic refresh of the instance-reported signals
 * (docs/behavior.md "Snapshots and signal freshness"). In-flight counts are always live.
 * Once told that its caller reports every change (trackChanges), a refresh rereads only the
 * instances reported as changed since their last refresh (the others would read the same values),
 * so a decision costs O(changes), not O(instances).
 */
export class SnapshotProvider implements RouterState {
  readonly snapshots: InstanceSnapshot[];
  clock = 0;
  private lastRefresh = 0;
  /** Instances that ran an event since their snapshot was refreshed: flag and list. */
  private readonly stale: Uint8Array;
  private readonly staleList: Int32Array;
  private nStale = 0;
  /** Instances whose in-flight count changed since the last decision: flag and list. */
  private readonly flightStale: Uint8Array;
  private readonly flightList: Int32Array;
  private nFlight = 0;
  /** Whether instanceChanged and inFlightChanged are called for every change. */
  private tracked = false;

  constructor(
    private readonly instances: readonly Instance[],
    private readonly inFlight: Int32Array,
    private readonly refreshInterval: number,
  ) {
    this.snapshots = instances.map((inst) => new InstanceSnapshot(inst.id, inst.index));
    const n = instances.length;
    this.stale = new Uint8Array(n);
    this.staleList = new Int32Array(n);
    this.flightStale = new Uint8Array(n);
    this.flightList = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      this.instanceChanged(i);
      this.inFlightChanged(i);
    }
  }

  /** From now on the caller reports every event an instance runs and every in-flight change. */
  trackChanges(): void {
    this.tracked = true;
  }

  /** Instance i ran an event: its signals may differ at the next refresh. */
  instanceChanged(i: number): void {
    if (this.stale[i] === 0) {
      this.stale[i] = 1;
      this.staleList[this.nStale++] = i;
    }
  }

  /** inFlight[i] changed. */
  inFlightChanged(i: number): void {
    if (this.flightStale[i] === 0) {
      this.flightStale[i] = 1;
      this.flightList[this.nFlight++] = i;
    }
  }

  take(clock: number): RouterState {
    this.clock = clock;
    const refresh = this.refreshInterval <= 0 || clock - this.lastRefresh >= this.refreshInterval;
    if (refresh && this.refreshInterval > 0) this.lastRefresh = clock;
    if (!this.tracked) {
      for (let i = 0; i < this.instances.length; i++) {
        if (refresh) this.refreshOne(i);
        this.snapshots[i]!.inFlight = this.inFlight[i]!;
      }
      return this;
    }
    if (refresh) {
      for (let k = 0; k < this.nStale; k++) {
        const i = this.staleList[k]!;
        this.stale[i] = 0;
        this.refreshOne(i);
      }
      this.nStale = 0;
    }
    for (let k = 0; k < this.nFlight; k++) {
      const i = this.flightList[k]!;
      this.flightStale[i] = 0;
      this.snapshots[i]!.inFlight = this.inFlight[i]!;
    }
    this.nFlight = 0;
    return this;
  }

  private refreshOne(i: number): void {
    const s = this.snapshots[i]!;
    const inst = this.instances[i]!;
    const kv = inst.kv;
    s.queueDepth = inst.waitQueue.length;
    s.batchSize = inst.running.length;
    s.kvUtilization = kv.utilization();
    s.freeKvBlocks = kv.freeBlocks();
    s.cacheHitRate = kv.cacheHitRate();
    s.pendingTransferLatency = kv.pendingTransferLatency();
    s.kvThrashingRate = kv.thrashingRate();
  }
}
