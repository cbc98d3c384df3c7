// Node pools with GPU inventory (docs/autoscaling.md "Node pools"): first-fit placement, nodes
// provisioned on demand with their delay up to max_nodes, and empty nodes released down to
// min_nodes. The pools do not schedule events: the caller turns `readyAt` into a NodeReady event.

import { InvariantError } from "../util/errors.js";

/** {mean, stddev} in seconds, sampled by sampleDelay. */
export interface DelaySpec {
  mean: number;
  stddev: number;
}

export interface NodePoolSpec {
  name: string;
  gpuType: string;
  gpusPerNode: number;
  gpuMemoryGib: number;
  initialNodes: number;
  minNodes: number;
  maxNodes: number;
  provisioningDelay: DelaySpec;
  costPerHour: number;
}

export const NODE_PROVISIONING = 0;
export const NODE_READY = 1;
export const NODE_RELEASED = 2;

export class Node {
  state = NODE_PROVISIONING;
  /** Holder of each GPU (an instance ID), null when free. */
  readonly holders: (string | null)[];
  free: number;
  readyAt = 0;
  releasedAt = Infinity;
  constructor(
    readonly pool: NodePoolSpec,
    readonly index: number,
  ) {
    this.holders = new Array<string | null>(pool.gpusPerNode).fill(null);
    this.free = pool.gpusPerNode;
  }
  get id(): string {
    return `${this.pool.name}-${this.index}`;
  }
}

/** GPUs held by one instance: all on one node. */
export interface Placement {
  node: Node;
  gpus: number[];
}

export class NodePools {
  /** Nodes per pool in declaration order, released ones included (their IDs are not reused). */
  readonly nodes: Node[][];

  /** `delay` samples a provisioning delay in ticks. */
  constructor(
    readonly specs: readonly NodePoolSpec[],
    private readonly delay: (d: DelaySpec) => number,
  ) {
    this.nodes = specs.map((spec) => {
      const list: Node[] = [];
      for (let k = 0; k < spec.initialNodes; k++) {
        const n = new Node(spec, k);
        n.state = NODE_READY;
        list.push(n);
      }
      return list;
    });
  }

  /**
   * First fit: pools in declaration order (of `gpuType`, any type when ""), their Ready nodes by
   * index; the first node with `tp` free GPUs gives its lowest-indexed free ones.
   */
  place(holder: string, tp: number, gpuType: string): Placement | null {
    for (let p = 0; p < this.specs.length; p++) {
      const spec = this.specs[p]!;
      if (gpuType !== "" && spec.gpuType !== gpuType) continue;
      for (const node of this.nodes[p]!) {
        if (node.state !== NODE_READY || node.free < tp) continue;
        const gpus: number[] = [];
        for (let g = 0; g < node.holders.length && gpus.length < tp; g++) {
          if (node.holders[g] === null) {
            node.holders[g] = holder;
            gpus.push(g);
          }
        }
        node.free -= tp;
        return { node, gpus };
      }
    }
    return null;
  }

  /**
   * Starts provisioning one node able to hold `tp` GPUs of `gpuType` (any type when ""), in the
   * first pool below max_nodes; null when every such pool is at max_nodes.
   */
  provision(tp: number, gpuType: string, now: number): Node | null {
    for (let p = 0; p < this.specs.length; p++) {
      const spec = this.specs[p]!;
      if ((gpuType !== "" && spec.gpuType !== gpuType) || spec.gpusPerNode < tp) continue;
      const list = this.nodes[p]!;
      if (this.live(list) >= spec.maxNodes) continue;
      const node = new Node(spec, list.length);
      node.readyAt = now + this.delay(spec.provisioningDelay);
      list.push(node);
      return node;
    }
    return null;
  }

  markReady(node: Node): void {
    if (node.state !== NODE_PROVISIONING) throw new InvariantError(`node ${node.id} became ready twice`);
    node.state = NODE_READY;
  }

  /** Frees an instance's GPUs; an emptied node above its pool's min_nodes is released. */
  release(pl: Placement, now: number): void {
    const node = pl.node;
    for (const g of pl.gpus) node.holders[g] = null;
    node.free += pl.gpus.length;
    if (node.free !== node.holders.length) return;
    const list = this.nodes[this.specs.indexOf(node.pool)]!;
    if (this.live(list) > node.pool.minNodes) {
      node.state = NODE_RELEASED;
      node.releasedAt = now;
    }
  }

  /** Free GPUs on Ready nodes of `gpuType` (every type when ""). */
  freeGpus(gpuType: string): number {
    let n = 0;
    this.forNodes(gpuType, (node) => {
      if (node.state === NODE_READY) n += node.free;
    });
    return n;
  }

  /**
   * How many more instances of `tp` GPUs of `gpuType` could be placed: free slots on Ready nodes
   * plus the nodes the pools may still provision.
   */
  slots(tp: number, gpuType: string): number {
    let n = 0;
    this.specs.forEach((spec, p) => {
      if ((gpuType !== "" && spec.gpuType !== gpuType) || spec.gpusPerNode < tp) return;
      const list = this.nodes[p]!;
      for (const node of list) if (node.state === NODE_READY) n += Math.floor(node.free / tp);
      n += (spec.maxNodes - this.live(list)) * Math.floor(spec.gpusPerNode / tp);
    });
    return n;
  }

  /** Instances of `tp` GPUs of `gpuType` that the nodes still provisioning will hold. */
  provisioningSlots(tp: number, gpuType: string): number {
    let n = 0;
    this.forNodes(gpuType, (node) => {
      if (node.state === NODE_PROVISIONING) n += Math.floor(node.pool.gpusPerNode / tp);
    });
    return n;
  }

  /** GPUs that provisioning nodes of `gpuType` will add, and whether some pool of it can still grow. */
  headroom(gpuType: string): { provisioning: number; canGrow: boolean } {
    let provisioning = 0;
    let canGrow = false;
    this.specs.forEach((spec, p) => {
      if (gpuType !== "" && spec.gpuType !== gpuType) return;
      const list = this.nodes[p]!;
      for (const node of list) if (node.state === NODE_PROVISIONING) provisioning += spec.gpusPerNode;
      if (this.live(list) < spec.maxNodes) canGrow = true;
    });
    return { provisioning, canGrow };
  }

  /** Cost per hour of the first pool of `gpuType` (0 when none). */
  costOf(gpuType: string): number {
    return this.specs.find((s) => s.gpuType === gpuType)?.costPerHour ?? 0;
  }

  /** Nodes by state: [provisioning, ready]; and GPU-seconds of Ready nodes up to `now`. */
  census(now: number): { provisioning: number; ready: number; gpuSeconds: number } {
    let provisioning = 0;
    let ready = 0;
    let gpuSeconds = 0;
    this.forNodes("", (node) => {
      if (node.state === NODE_PROVISIONING && node.readyAt > now) provisioning++;
      else if (node.state === NODE_READY) ready++;
      if (node.state !== NODE_PROVISIONING) {
        const end = Math.min(node.releasedAt, now);
        if (end > node.readyAt) gpuSeconds += ((end - node.readyAt) / 1e6) * node.pool.gpusPerNode;
      }
    });
    return { provisioning, ready, gpuSeconds };
  }

  /** Per node: allocated + free = total (docs/autoscaling.md "Node pools"). */
  checkInventory(): void {
    this.forNodes("", (node) => {
      const held = node.holders.filter((h) => h !== null).length;
      if (held + node.free !== node.holders.length)
        throw new InvariantError(`node ${node.id}: ${held} allocated + ${node.free} free`);
    });
  }

  private live(list: readonly Node[]): number {
    let n = 0;
    for (const node of list) if (node.state !== NODE_RELEASED) n++;
    return n;
  }

  private forNodes(gpuType: string, f: (node: Node) => void): void {
    this.specs.forEach((spec, p) => {
      if (gpuType === "" || spec.gpuType === gpuType) for (const node of this.nodes[p]!) f(node);
    });
  }
}

/**
 * A delay sample (docs/autoscaling.md): the mean when stddev ≤ 0, else mean + stddev·N(0,1);
 * negative or non-finite → 0; in whole ticks.
 */
export function delayTicks(d: DelaySpec, normal: () => number): number {
  const s = d.stddev > 0 ? d.mean + d.stddev * normal() : d.mean;
  return Number.isFinite(s) && s > 0 ? Math.trunc(s * 1e6) : 0;
}
