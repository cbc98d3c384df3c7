import { z } from "zod";
import { minMaxInPlace, queueDepthScores, type Scorer, type ScorerDescriptor } from "./scorer.js";
import type { RouterState } from "../snapshot.js";
import { UserError } from "../../util/errors.js";

/**
 * min-max↓ over EffectiveLoad (seed BLIS), or over QueueDepth alone (today's BLIS,
 * `--queue-depth-signal queue`); 1 for all when the values are equal.
 */
export class QueueDepthScorer implements Scorer {
  readonly name = "queue-depth";
  constructor(private readonly queueOnly = false) {}
  score(_req: unknown, state: RouterState, out: Float64Array): void {
    if (!this.queueOnly) {
      queueDepthScores(state, out);
      return;
    }
    const s = state.snapshots;
    for (let i = 0; i < s.length; i++) out[i] = s[i]!.queueDepth;
    minMaxInPlace(out, s.length, true);
  }
  observe(): void {}
}

export const QUEUE_DEPTH_SIGNALS = ["effective", "queue"] as const;

/** Checked whatever the scorers (a bad value is bad input even where it has no effect). */
export function checkQueueDepthSignal(v: string): void {
  if (!(QUEUE_DEPTH_SIGNALS as readonly string[]).includes(v)) {
    throw new UserError(`--queue-depth-signal must be "effective" or "queue", got "${v}"`);
  }
}

export const queueDepthParams = z.object({ queueDepthSignal: z.string().default("effective") });

export const queueDepth: ScorerDescriptor<z.infer<typeof queueDepthParams>> = {
  name: "queue-depth",
  description: "short queues",
  params: queueDepthParams,
  flags: [
    {
      key: "queueDepthSignal",
      flag: "--queue-depth-signal",
      type: "string",
      group: "policy",
      help: "queue-depth scorer's load: effective (QueueDepth + BatchSize + InFlight, seed BLIS) or queue (QueueDepth only, today's BLIS)",
    },
  ],
  validate: (p) => checkQueueDepthSignal(p.queueDepthSignal),
  create: (p) => new QueueDepthScorer(p.queueDepthSignal === "queue"),
};

/** 1 / (1 + EffectiveLoad). */
export class LoadBalanceScorer implements Scorer {
  readonly name = "load-balance";
  score(_req: unknown, state: RouterState, out: Float64Array): void {
    const s = state.snapshots;
    for (let i = 0; i < s.length; i++) out[i] = 1 / (1 + s[i]!.effectiveLoad);
  }
  observe(): void {}
}

/** 1 − KVUtilization. */
export class KvUtilizationScorer implements Scorer {
  readonly name = "kv-utilization";
  score(_req: unknown, state: RouterState, out: Float64Array): void {
    const s = state.snapshots;
    for (let i = 0; i < s.length; i++) out[i] = 1 - s[i]!.kvUtilization;
  }
  observe(): void {}
}
