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
 */
export class SnapshotProvider implements RouterState {
  readonly snapshots: InstanceSnapshot[];
  clock = 0;
  private lastRefresh = 0;

  constructor(
    private readonly instances: readonly Instance[],
    private readonly inFlight: Int32Array,
    private readonly refreshInterval: number,
  ) {
    this.snapshots = instances.map((inst) => new InstanceSnapshot(inst.id, inst.index));
  }

  take(clock: number): RouterState {
    this.clock = clock;
    const refresh = this.refreshInterval <= 0 || clock - this.lastRefresh >= this.refreshInterval;
    if (refresh && this.refreshInterval > 0) this.lastRefresh = clock;
    for (let i = 0; i < this.instances.length; i++) {
      const s = this.snapshots[i]!;
      if (refresh) {
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
      s.inFlight = this.inFlight[i]!;
    }
    return this;
  }
}
