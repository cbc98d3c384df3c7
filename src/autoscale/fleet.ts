// The instances' lifecycle on the cluster (docs/autoscaling.md "Instance lifecycle"): placement on
// node pools (or unlimited GPUs without pools), loading delays, draining and termination, and
// the GPU time each instance holds.

import { Rng, deriveStreamSeed } from "../engine/rng.js";
import type { Instance } from "../instance/instance.js";
import type { Logger } from "../util/log.js";
import type { ClusterPort } from "../cluster/extension.js";
import { delayTicks, NodePools, type DelaySpec, type Node, type Placement } from "../infra/nodePools.js";
import { ACTIVE, DRAINING, LOADING, SCHEDULING, TERMINATED, checkTransition, isRoutable } from "../infra/lifecycle.js";
import type { AutoscaleSettings } from "./settings.js";
import type { Variant } from "./types.js";

export const EV_NODE_READY = 0;
export const EV_LOADED = 1;

export interface FleetContext {
  /**
   * The port the autoscaler was attached with (it declares "fleet"), the fleet's only way to the
   * cluster; its instance list grows as instances are added.
   */
  port(): ClusterPort;
  /** Builds instance `index` from the global configuration. */
  build(index: number): Instance;
  log: Logger;
  /** GPUs per instance (max(--tp, 1)), the GPU label without node pools, the served model. */
  tp: number;
  hardware: string;
  model: string;
  seed: bigint;
  /** Pushes a lifecycle event (EV_NODE_READY with a Node, EV_LOADED with an instance index). */
  schedule(t: number, kind: number, payload: Node | number): void;
  /**
   * A scaling or lifecycle event for the decision trace and stderr: `detail` is the stderr text,
   * `subject` the instance (or node) concerned, `reason` why it happened.
   */
  note(t: number, kind: string, detail: string, subject: string, reason: string): void;
}

/** A replica waiting for a node to become Ready. */
interface PendingPlacement {
  /** Index of a startup instance, or -1 for an autoscaled one still to build. */
  index: number;
  name: string;
  variant: Variant;
  /** Why the replica was asked for (autoscaled ones; the decision trace). */
  reason: string;
}

export class Fleet {
  readonly pools: NodePools | null;
  readonly variants: Variant[] = [];
  private readonly placements: (Placement | null)[] = [];
  /** When each instance got its GPUs and released them (ticks; Infinity while held or never). */
  readonly heldFrom: number[] = [];
  readonly heldTo: number[] = [];
  readonly pending: PendingPlacement[] = [];
  private readonly loadingRng: Rng;
  private readonly nodeRng: Rng;
  created = 0;
  /** Routable instances now and at most (outputs). */
  private routableNow = 0;
  peakRoutable = 0;

  constructor(
    private readonly ctx: FleetContext,
    private readonly s: AutoscaleSettings,
  ) {
    this.loadingRng = new Rng(deriveStreamSeed(ctx.seed, "instance-loading"));
    this.nodeRng = new Rng(deriveStreamSeed(ctx.seed, "node-provisioning"));
    this.pools = s.nodePools.length > 0 ? new NodePools(s.nodePools, (d) => this.sample(this.nodeRng, d)) : null;
  }

  /** The cluster's instances, startup and added ones. */
  private get instances(): readonly Instance[] {
    return this.ctx.port().instances;
  }

  private sample(rng: Rng, d: DelaySpec): number {
    return delayTicks(d, () => rng.normFloat64());
  }

  /** Startup placement in index order (before the run): Active with warm start, else Loading. */
  start(): void {
    const n = this.instances.length;
    for (let i = 0; i < n; i++) {
      const inst = this.instances[i]!;
      // With pools a startup instance takes any GPU type and gets its label from the pool.
      this.variants.push({ gpu: this.pools === null ? this.ctx.hardware : "", tp: this.ctx.tp });
      this.placements.push(null);
      this.heldFrom.push(Infinity);
      this.heldTo.push(Infinity);
      inst.lifecycle = SCHEDULING;
      this.ctx.port().setRoutable(i, false);
      if (!this.placeAndLoad(i, 0, this.s.warmStart))
        this.wait({ index: i, name: inst.id, variant: this.variants[i]!, reason: "startup instance" }, 0);
    }
  }

  /** Places instance i (if pools exist) and starts it: Active at once or after its loading delay. */
  private placeAndLoad(i: number, now: number, warm: boolean): boolean {
    const inst = this.instances[i]!;
    if (this.pools !== null) {
      const pl = this.pools.place(inst.id, this.variants[i]!.tp, this.variants[i]!.gpu);
      if (pl === null) return false;
      this.placements[i] = pl;
      this.variants[i] = { gpu: pl.node.pool.gpuType, tp: this.variants[i]!.tp };
      const where = `${inst.id} on node ${pl.node.id} (gpu=${pl.node.pool.gpuType}, tp=${pl.gpus.length})`;
      this.ctx.note(now, "placed", where, inst.id, `first fit on node ${pl.node.id}`);
    }
    this.heldFrom[i] = now;
    this.move(inst, LOADING);
    const delay = warm ? 0 : this.sample(this.loadingRng, this.s.loadingDelay);
    if (delay === 0) this.activate(i, now);
    else this.ctx.schedule(now + delay, EV_LOADED, i);
    return true;
  }

  /**
   * A replica waits for a node: one is provisioned for it when some pool can grow; otherwise an
   * autoscaled replica is given up and a startup one waits for GPUs to be freed.
   */
  private wait(p: PendingPlacement, now: number): void {
    const node = this.pools!.provision(p.variant.tp, p.variant.gpu, now);
    if (node === null) {
      this.ctx.log.warn(
        `no node can hold ${p.name} (tp=${p.variant.tp}${p.variant.gpu === "" ? "" : `, gpu=${p.variant.gpu}`}): node pools are at max_nodes`,
      );
      if (p.index < 0) return;
    } else {
      this.ctx.note(
        now,
        "node-provisioning",
        `${node.id} for ${p.name}, ready at ${node.readyAt}`,
        p.name,
        `no free GPUs: node ${node.id} ready at ${node.readyAt}`,
      );
      this.ctx.schedule(node.readyAt, EV_NODE_READY, node);
    }
    this.pending.push(p);
  }

  /**
   * Places waiting replicas in order; those left over beyond what the provisioning nodes will
   * hold get a node of their own.
   */
  private retryPending(now: number): void {
    const waiting = this.pending.splice(0);
    const covered = new Map<string, number>();
    for (const p of waiting) {
      if (p.index >= 0 ? this.placeAndLoad(p.index, now, false) : this.placeNew(p, now)) continue;
      const key = `${p.variant.gpu}|${p.variant.tp}`;
      const left = covered.get(key) ?? this.pools!.provisioningSlots(p.variant.tp, p.variant.gpu);
      covered.set(key, left - 1);
      if (left > 0) this.pending.push(p);
      else this.wait(p, now);
    }
  }

  private placeNew(p: PendingPlacement, now: number): boolean {
    const pl = this.pools!.place(p.name, p.variant.tp, p.variant.gpu);
    if (pl !== null) this.build(p.name, p.variant, pl, now, `${p.reason}; waited for a node`);
    return pl !== null;
  }

  /** An autoscaled replica of `variant` (docs/autoscaling.md "The autoscaler"). */
  scaleUp(variant: Variant, now: number, reason: string): void {
    if (this.created >= this.s.instanceBudget) {
      this.ctx.log.warn(
        `scale-up for model "${this.ctx.model}" skipped: the run's instance budget (${this.s.instanceBudget}) is used up`,
      );
      return;
    }
    this.created++;
    const name = `autoscale-${this.ctx.model}-${String(this.created).padStart(6, "0")}`;
    const pl = this.pools?.place(name, variant.tp, variant.gpu) ?? null;
    if (this.pools !== null && pl === null) {
      this.wait({ index: -1, name, variant, reason }, now);
      return;
    }
    this.build(name, variant, pl, now, reason);
  }

  private build(name: string, variant: Variant, pl: Placement | null, now: number, reason: string): void {
    const i = this.instances.length;
    const inst = this.ctx.build(i);
    inst.name = name;
    inst.lifecycle = SCHEDULING;
    this.ctx.port().addInstance(inst);
    this.variants.push(pl === null ? variant : { gpu: pl.node.pool.gpuType, tp: variant.tp });
    this.placements.push(pl);
    this.heldFrom.push(now);
    this.heldTo.push(Infinity);
    const where = pl === null ? "" : ` on node ${pl.node.id}`;
    this.ctx.note(
      now,
      "scale-up",
      `placed instance ${name} for model "${this.ctx.model}"${where} (gpu=${this.variants[i]!.gpu}, tp=${variant.tp})`,
      name,
      reason,
    );
    this.move(inst, LOADING);
    const delay = this.sample(this.loadingRng, this.s.loadingDelay);
    if (delay === 0) this.activate(i, now);
    else this.ctx.schedule(now + delay, EV_LOADED, i);
  }

  onNodeReady(node: Node, now: number): void {
    this.pools!.markReady(node);
    this.ctx.note(now, "node-ready", node.id, node.id, "provisioning delay elapsed");
    this.retryPending(now);
  }

  onLoaded(i: number, now: number): void {
    if (this.instances[i]!.lifecycle === LOADING) this.activate(i, now);
  }

  private activate(i: number, now: number): void {
    const inst = this.instances[i]!;
    this.move(inst, ACTIVE);
    this.ctx.port().setRoutable(i, true);
    this.routableNow++;
    if (this.routableNow > this.peakRoutable) this.peakRoutable = this.routableNow;
    if (now > 0) this.ctx.note(now, "active", inst.id, inst.id, "loading delay elapsed");
  }

  /** Scale-down: stop routing to the instance; it terminates once it has nothing left. */
  drain(inst: Instance, now: number, reason: string): void {
    this.move(inst, DRAINING);
    this.ctx.port().setRoutable(inst.index, false);
    this.routableNow--;
    const flight = this.ctx.port().inFlight[inst.index];
    this.ctx.note(
      now,
      "scale-down",
      `draining instance ${inst.id} (in flight ${flight})`,
      inst.id,
      `${reason}; ${flight} in flight`,
    );
    this.afterInstanceEvents(inst.index, now);
  }

  /** A draining instance with nothing queued, running, in flight or scheduled terminates. */
  afterInstanceEvents(i: number, t: number): void {
    const inst = this.instances[i]!;
    if (inst.lifecycle !== DRAINING) return;
    if (this.ctx.port().inFlight[i] !== 0 || inst.waitQueue.length > 0 || inst.running.length > 0) return;
    if (inst.nextEventTime() !== Infinity) return;
    this.move(inst, TERMINATED);
    this.heldTo[i] = t;
    const pl = this.placements[i];
    this.ctx.note(t, "terminated", inst.id, inst.id, "drained: nothing left in flight");
    if (pl !== null && pl !== undefined) {
      this.pools!.release(pl, t);
      if (this.pending.length > 0) this.retryPending(t);
    }
  }

  private move(inst: Instance, to: number): void {
    checkTransition(inst.id, inst.lifecycle, to);
    inst.lifecycle = to;
  }

  /** Instances by state, routable count, and replicas being placed or loading. */
  counts(): { byState: number[]; routable: number; pending: number } {
    const byState = [0, 0, 0, 0, 0, 0];
    let routable = 0;
    for (const inst of this.instances) {
      byState[inst.lifecycle]!++;
      if (isRoutable(inst.lifecycle)) routable++;
    }
    const waiting = this.pending.filter((p) => p.index < 0).length;
    return { byState, routable, pending: byState[SCHEDULING]! + byState[LOADING]! + waiting };
  }

  /** GPU-seconds held by instances up to `now`. */
  gpuSeconds(now: number): number {
    let sum = 0;
    for (let i = 0; i < this.heldFrom.length; i++) {
      const from = this.heldFrom[i]!;
      const to = Math.min(this.heldTo[i]!, now);
      if (to > from) sum += ((to - from) / 1e6) * this.variants[i]!.tp;
    }
    return sum;
  }
}
