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
  /** LoRA adapters resident at the last refresh (null: LoRA off). */
  residentAdapters: ReadonlySet<string> | null = null;
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
 * freshness"). In-flight counts are always live. Once told that its caller reports every change
 * (trackChanges), a refresh rereads only the instances reported as changed since their last
 * refresh (the others would read the same values), so a decision costs O(changes), not
 * O(instances).
 */
export class SnapshotProvider implements RouterState {
  snapshots: readonly InstanceSnapshot[];
  clock = 0;
  readonly cache: CacheSignalProvider | null;
  private readonly all: InstanceSnapshot[];
  /** The routable instances' snapshots when some instance is not routable (autoscaling); null: all are. */
  private routable: InstanceSnapshot[] | null = null;
  private notRoutable: Uint8Array | null = null;
  private readonly model: string | null;
  private lastRefresh = 0;
  /** Instances that ran an event since their snapshot was refreshed: flag and list. */
  private stale: Uint8Array;
  private staleList: Int32Array;
  private nStale = 0;
  /** Instances whose in-flight count changed since the last decision: flag and list. */
  private flightStale: Uint8Array;
  private flightList: Int32Array;
  private nFlight = 0;
  /** Whether instanceChanged and inFlightChanged are called for every change. */
  private tracked = false;

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
    this.snapshots = this.routable ?? this.all;
    const refresh = this.refreshInterval <= 0 || clock - this.lastRefresh >= this.refreshInterval;
    if (refresh && this.refreshInterval > 0) this.lastRefresh = clock;
    if (!this.tracked) {
      for (let i = 0; i < this.instances.length; i++) {
        if (refresh) this.refreshOne(i);
        this.all[i]!.inFlight = this.inFlight[i]!;
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
      this.all[i]!.inFlight = this.inFlight[i]!;
    }
    this.nFlight = 0;
    return this;
  }

  /**
   * An empty model tag matches every instance; otherwise the tag must name the instance model,
   * ignoring letter case (docs/behavior.md#c29).
   */
  private serves(model: string): boolean {
    return model === "" || this.model === null || model === this.model || model.toLowerCase() === this.model;
  }

  /** A new instance (autoscaling): appended to the candidates when routable. */
  addInstance(inst: Instance, routable: boolean): void {
    const i = this.all.length;
    this.all.push(new InstanceSnapshot(inst.id, inst.index));
    if (this.cache !== null) this.cache.addCache(inst.kv);
    if (i >= this.stale.length) {
      const grow = <T extends Uint8Array | Int32Array>(a: T, make: (n: number) => T): T => {
        const b = make(Math.max(8, a.length * 2));
        b.set(a);
        return b;
      };
      this.stale = grow(this.stale, (n) => new Uint8Array(n));
      this.staleList = grow(this.staleList, (n) => new Int32Array(n));
      this.flightStale = grow(this.flightStale, (n) => new Uint8Array(n));
      this.flightList = grow(this.flightList, (n) => new Int32Array(n));
    }
    this.instanceChanged(i);
    this.inFlightChanged(i);
    this.setRoutable(i, routable);
  }

  /** Instance i becomes (or stops being) a candidate. */
  setRoutable(i: number, routable: boolean): void {
    if (this.notRoutable === null || this.notRoutable.length < this.all.length) {
      const flags = new Uint8Array(Math.max(8, this.all.length * 2));
      if (this.notRoutable !== null) flags.set(this.notRoutable);
      this.notRoutable = flags;
    }
    this.notRoutable[i] = routable ? 0 : 1;
    const flags = this.notRoutable;
    this.routable = this.all.filter((s) => flags[s.index] === 0);
  }

  private refreshOne(i: number): void {
    const s = this.all[i]!;
    const inst = this.instances[i]!;
    const kv = inst.kv;
    s.queueDepth = inst.waitQueue.length;
    s.batchSize = inst.running.length;
    s.kvUtilization = kv.utilization();
    s.freeKvBlocks = kv.freeBlocks();
    s.cacheHitRate = kv.cacheHitRate();
    s.pendingTransferLatency = kv.pendingTransferLatency();
    s.kvThrashingRate = kv.thrashingRate();
    const lora = inst.lora;
    if (lora) s.residentAdapters = lora.residentIds(); // absent on test doubles
  }
}
