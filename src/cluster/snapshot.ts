import type { Instance } from "../instance/instance.js";
import type { Request } from "../core/request.js";
import { CacheSignalProvider, type CacheSignals } from "./scorers/cacheSignals.js";

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

/**
 * The candidates of one decision (snapshots in index order) plus the decision clock. Policies answer
 * with a position in `snapshots`; `snapshots[k].index` is the instance. Reused between decisions:
 * do not retain.
 */
export interface RouterState {
  readonly snapshots: readonly InstanceSnapshot[];
  clock: number;
  /** Instance prefix caches for the cache-aware scorers; absent or null when no scorer reads them. */
  readonly cache?: CacheSignals | null;
}

/** What the provider builds besides the periodic snapshots. */
export interface CandidateOptions {
  /** The model every instance serves (the lower-cased --model); null: instances serve any model. */
  model?: string | null;
  /** --cache-signal-delay when a routing scorer reads the instance caches; null: none does. */
  cacheSignalDelay?: number | null;
}

const NO_CANDIDATES: readonly InstanceSnapshot[] = [];

/**
 * Builds router states over the routable instances serving the request's model, with immediate or
 * periodic refresh of the instance-reported signals (docs/behavior.md "Snapshots and signal
 * freshness"). In-flight counts are always live.
 */
export class SnapshotProvider implements RouterState {
  snapshots: readonly InstanceSnapshot[];
  clock = 0;
  readonly cache: CacheSignalProvider | null;
  private readonly all: InstanceSnapshot[];
  private readonly model: string | null;
  private lastRefresh = 0;

  constructor(
    private readonly instances: readonly Instance[],
    private readonly inFlight: Int32Array,
    private readonly refreshInterval: number,
    opts: CandidateOptions = {},
  ) {
    this.all = instances.map((inst) => new InstanceSnapshot(inst.id, inst.index));
    this.snapshots = this.all;
    this.model = opts.model ?? null;
    const delay = opts.cacheSignalDelay ?? null;
    this.cache =
      delay === null
        ? null
        : new CacheSignalProvider(
            instances.map((inst) => inst.kv),
            delay,
          );
  }

  /**
   * The router state of a decision at `clock` about `req` (every instance when no request is
   * given). Every instance is routable and all serve one model, so the candidates are all
   * instances or none; with none, no snapshot is refreshed.
   */
  take(clock: number, req?: Request): RouterState {
    this.clock = clock;
    if (this.cache !== null) this.cache.refresh(clock);
    if (req !== undefined && !this.serves(req.model)) {
      this.snapshots = NO_CANDIDATES;
      return this;
    }
    this.snapshots = this.all;
    const refresh = this.refreshInterval <= 0 || clock - this.lastRefresh >= this.refreshInterval;
    if (refresh && this.refreshInterval > 0) this.lastRefresh = clock;
    for (let i = 0; i < this.instances.length; i++) {
      const s = this.all[i]!;
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

  /**
   * An empty model tag matches every instance; otherwise the tag must name the instance model,
   * ignoring letter case (docs/behavior.md#c29).
   */
  private serves(model: string): boolean {
    return model === "" || this.model === null || model === this.model || model.toLowerCase() === this.model;
  }
}
