// What proposing costs per step, by method (docs/speculative.md "Proposal cost"). Computed from
// the LatencyModel interface alone: the proposer's passes are priced as steps of a reshaped batch.

import type { Request } from "../core/request.js";
import type { LatencyModel } from "../latency/model.js";
import type { SpecMethod } from "./config.js";

/** n-gram lookup is CPU work on the scheduler's thread: a fixed cost per step that proposes, µs. */
export const NGRAM_STEP_US = 50;

/** A method's proposal time for one step. */
export interface ProposalCost {
  /**
   * Ticks spent proposing for step batch[0 .. n): requests with specTokens > 0 verify that many proposals (none: no
   * cost).
   */
  time(batch: Request[], n: number): number;
}

/** What a proposal-cost model is built from for one instance. */
export interface ProposalInputs {
  method: SpecMethod;
  /** The instance's (target) latency model. */
  target: LatencyModel;
  /** Decoder layers of the target model (EAGLE and MTP heads cost about one of them per pass). */
  targetLayers: number;
  /** The draft model's latency model (draft_model only). */
  draft: LatencyModel | null;
}

export function proposalCost(inp: ProposalInputs): ProposalCost {
  if (inp.method === "ngram") return { time: (batch, n) => (mostProposals(batch, n) > 0 ? NGRAM_STEP_US : 0) };
  if (inp.method === "draft_model") return new PassCost(inp.draft!, 1);
  return new PassCost(inp.target, inp.targetLayers);
}

/**
 * k sequential proposer passes: the first over the step's whole batch (the proposer also reads
 * the prompt chunks scheduled with it), with each verifying request at one token; the others over
 * the verifying requests only, one token each. A pass costs `model`'s step time divided by
 * `share` (the number of target layers, for a one-layer head; 1 for a draft model).
 */
class PassCost implements ProposalCost {
  private readonly spec: Request[] = [];

  constructor(
    private readonly model: LatencyModel,
    private readonly share: number,
  ) {}

  time(batch: Request[], n: number): number {
    const spec = this.spec;
    let m = 0;
    let kMax = 0;
    for (let i = 0; i < n; i++) {
      const r = batch[i]!;
      if (r.specTokens > 0) {
        r.numNewTokens = 1;
        spec[m++] = r;
        if (r.specTokens > kMax) kMax = r.specTokens;
      }
    }
    if (m === 0) return 0;
    const first = this.model.stepTime(batch, n);
    const rest = kMax > 1 ? (kMax - 1) * this.model.stepTime(spec, m) : 0;
    for (let i = 0; i < m; i++) spec[i]!.numNewTokens = 1 + spec[i]!.specTokens;
    return Math.round((first + rest) / this.share);
  }
}

/** The most proposals a request of batch[0 .. n) verifies. */
function mostProposals(batch: Request[], n: number): number {
  let k = 0;
  for (let i = 0; i < n; i++) if (batch[i]!.specTokens > k) k = batch[i]!.specTokens;
  return k;
}
