// The default collector (docs/autoscaling.md "The autoscaler"): per routable replica its variant, cost,
// queue depth and KV tokens (read through the router's snapshots, so the snapshot refresh rules
// apply), plus the replicas still being placed or loading with their KV capacity.

import { z } from "zod";
import type { PolicyDescriptor } from "../util/policyRegistry.js";
import type { RouterState } from "../cluster/snapshot.js";
import type { Instance } from "../instance/instance.js";
import type { Collector, ModelSignals, ReplicaSignal, Variant } from "./types.js";

export interface CollectorContext {
  state(clock: number): RouterState;
  readonly instances: readonly Instance[];
  readonly inFlight: Int32Array;
  variantOf(i: number): Variant;
  costOf(gpu: string): number;
  /** Replicas being placed or loading. */
  pendingReplicas(): number;
  /** KV capacity of one replica in tokens (every instance has the same configuration). */
  readonly replicaCapacityTokens: number;
  readonly blockSize: number;
  readonly model: string;
}

class DefaultCollector implements Collector {
  constructor(private readonly ctx: CollectorContext) {}

  collect(clock: number): ModelSignals[] {
    const ctx = this.ctx;
    const replicas: ReplicaSignal[] = [];
    for (const s of ctx.state(clock).snapshots) {
      const inst = ctx.instances[s.index]!;
      const total = inst.kv.totalBlocks;
      const variant = ctx.variantOf(s.index);
      replicas.push({
        index: s.index,
        variant,
        cost: ctx.costOf(variant.gpu),
        queueDepth: s.queueDepth,
        inFlight: ctx.inFlight[s.index]!,
        kvTokensInUse: Math.round(s.kvUtilization * total) * ctx.blockSize,
        kvCapacityTokens: total * ctx.blockSize,
      });
    }
    const pending = ctx.pendingReplicas();
    return [
      {
        model: ctx.model,
        replicas,
        pendingReplicas: pending,
        pendingCapacityTokens: pending * ctx.replicaCapacityTokens,
      },
    ];
  }
}

export const defaultCollector: PolicyDescriptor<CollectorContext, Collector> = {
  name: "default",
  description: "queue depth and KV tokens of routable replicas, capacity of loading ones",
  params: z.object({}) as never,
  flags: [],
  create: (_p, ctx) => new DefaultCollector(ctx),
};
