// Scaling engines with exact-N sizing (docs/autoscaling.md "The autoscaler"): one decision at most per
// model, never both directions. Scale-up sizes n = ceil(required / per-replica supply) on the
// cheapest variant (unlimited) or the cheapest one with enough free GPUs (greedy); scale-down
// drains floor(spare / per-replica supply) replicas of the most expensive variant.

import { z } from "zod";
import type { PolicyDescriptor } from "../util/policyRegistry.js";
import { tieOrder } from "./analyzer.js";
import type { Analysis, Decision, Engine, EngineContext, VariantSummary } from "./types.js";

const noParams = z.object({});

function upSize(v: VariantSummary, required: number): number {
  if (v.replicas === 0 || v.supply <= 0) return 1;
  return Math.max(1, Math.ceil(required / (v.supply / v.replicas)));
}

function scaleDown(a: Analysis): Decision | null {
  if (!(a.spareCapacity > 0)) return null;
  const byCostDesc = [...a.variants].sort((x, y) => y.cost - x.cost || tieOrder(x, y));
  const v = byCostDesc.find((x) => x.replicas >= 1);
  if (v === undefined) return null;
  const per = v.supply / v.replicas;
  const n = per > 0 ? Math.min(v.replicas, Math.max(1, Math.floor(a.spareCapacity / per))) : 1;
  return { model: a.model, variant: { gpu: v.gpu, tp: v.tp }, delta: -n };
}

class UnlimitedEngine implements Engine {
  decide(a: Analysis): Decision | null {
    if (a.requiredCapacity > 0) {
      const v = a.variants[0];
      if (v === undefined) return null;
      return { model: a.model, variant: { gpu: v.gpu, tp: v.tp }, delta: upSize(v, a.requiredCapacity) };
    }
    return scaleDown(a);
  }
}

class GreedyEngine implements Engine {
  constructor(private readonly ctx: EngineContext) {}
  decide(a: Analysis): Decision | null {
    if (a.requiredCapacity > 0) {
      for (const v of a.variants) {
        const n = upSize(v, a.requiredCapacity);
        if (this.ctx.freeSlots(v) >= Math.max(n * v.tp, 1))
          return { model: a.model, variant: { gpu: v.gpu, tp: v.tp }, delta: n };
      }
      return null;
    }
    return scaleDown(a);
  }
}

export const unlimitedEngine: PolicyDescriptor<EngineContext, Engine> = {
  name: "unlimited",
  description: "cheapest variant, GPU inventory ignored (nodes are provisioned on demand)",
  params: noParams as never,
  flags: [],
  create: () => new UnlimitedEngine(),
};

export const greedyEngine: PolicyDescriptor<EngineContext, Engine> = {
  name: "greedy",
  description: "cheapest variant with enough free GPUs on Ready nodes",
  params: noParams as never,
  flags: [],
  create: (_p, ctx) => new GreedyEngine(ctx),
};
