// Speculative decoding on one instance (docs/speculative.md "The step"): how many proposals a
// decoding request verifies in a step, the KV slots they take for that step, how many are accepted.

import type { Request } from "../core/request.js";
import type { Rng } from "../engine/rng.js";
import type { KvCache } from "../kv/kvCache.js";
import { drawAccepted, type AcceptanceTable } from "./acceptance.js";
import type { ProposalCost } from "./proposalCost.js";
import { SpecStats } from "./stats.js";

/** The run-level parts every speculating instance shares. */
export interface SpeculationRun {
  k: number;
  disableByBatchSize: number;
  table: AcceptanceTable;
}

/**
 * One instance's speculation. Batch formation calls plan() for each decoding request after its
 * committed token is placed; the step's duration adds proposalTime(); the execution pass calls
 * endOfStepKv() once, then settle() for each verifying request.
 */
export class InstanceSpeculation {
  readonly stats: SpecStats;
  /** disable_by_batch_size is in force for the current step. */
  private off = false;

  constructor(
    private readonly run: SpeculationRun,
    private readonly kv: KvCache,
    private readonly rng: Rng,
    private readonly proposal: ProposalCost,
  ) {
    this.stats = new SpecStats(run.k);
  }

  /** A new step with `running` requests in the batch. */
  beginStep(running: number): void {
    const dbs = this.run.disableByBatchSize;
    this.off = dbs > 0 && running >= dbs;
    if (this.off) this.stats.disabledSteps++;
  }

  /**
   * Proposals r verifies in this step, its committed token already placed: k, but no more than
   * the token budget left, the output it still has to produce after this step's token, and the
   * KV blocks free for the speculative slots (taken as scratch until the step ends). Sets
   * r.specTokens.
   */
  plan(r: Request, budget: number): number {
    let k = this.off ? 0 : this.run.k;
    if (k > budget) k = budget;
    const left = r.inputLen + (r.outputLen > 1 ? r.outputLen : 1) - 2 - r.pi;
    if (k > left) k = left;
    if (k <= 0) {
      r.specTokens = 0;
      return 0;
    }
    const bs = this.kv.blockSize;
    const room = r.tailFill < bs ? bs - r.tailFill : 0;
    if (k > room) {
      const free = this.kv.freeBlocks();
      let need = Math.ceil((k - room) / bs);
      if (need > free) {
        // Under KV pressure the step verifies fewer proposals rather than preempting anyone.
        need = free;
        k = room + free * bs;
      }
      if (need > 0) this.kv.reserveScratch(need);
    }
    r.specTokens = k;
    return k;
  }

  /** Ticks the proposer adds to step batch[0 .. n). */
  proposalTime(batch: Request[], n: number): number {
    return this.proposal.time(batch, n);
  }

  /** Rejected slots leave at the end of the step: every scratch block goes back before accepted tokens are placed. */
  endOfStepKv(): void {
    if (this.kv.scratchBlocks > 0) this.kv.releaseScratch();
  }

  /**
   * Draws how many of r's proposals are accepted and places their KV from sequence position `pos`
   * (the one after the step's committed token); returns the accepted count (extra tokens emitted).
   */
  settle(r: Request, pos: number): number {
    const k = r.specTokens;
    r.specTokens = 0;
    let a = drawAccepted(this.rng, this.run.table.profileOf(r), k);
    for (let j = 0; j < a; j++) {
      // Never fails: the scratch blocks just released cover every accepted slot.
      if (!this.kv.allocate(r, pos + j, pos + j + 1, 0)) {
        a = j;
        break;
      }
    }
    this.stats.noteDraft(k, a);
    r.computed -= k - a;
    return a;
  }
}
