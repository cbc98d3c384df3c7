// --routing-tie-break: how `weighted` and `least-loaded` choose among equally good candidates
// (docs/behavior.md "Routing and scorers").
import { z } from "zod";
import { deriveStreamSeed, Rng } from "../../engine/rng.js";
import { UserError } from "../../util/errors.js";
import type { ParamFlag } from "../../util/policyRegistry.js";

export const TIE_BREAKS = ["first", "random"] as const;

export const tieBreakParams = z.object({
  routingTieBreak: z.string().default("first"),
  /** The run's --seed: the `router` random stream derives from it. */
  seed: z.union([z.number().int(), z.bigint()]).default(42),
});

export type TieBreakParams = z.infer<typeof tieBreakParams>;

export const TIE_BREAK_FLAG: ParamFlag = {
  key: "routingTieBreak",
  flag: "--routing-tie-break",
  type: "string",
  group: "policy",
  help: "weighted and least-loaded ties: first (lowest index, seed BLIS) or random (uniform, router random stream, today's BLIS)",
};

/** Checked whatever the routing policy (a bad value is bad input even where it has no effect). */
export function checkTieBreak(v: string): void {
  if (!(TIE_BREAKS as readonly string[]).includes(v)) {
    throw new UserError(`--routing-tie-break must be "first" or "random", got "${v}"`);
  }
}

/** Picks one of `count` tied candidates: the first, or uniformly with one draw of the router stream. */
export class TieBreaker {
  private rng: Rng | null = null;
  readonly random: boolean;
  private readonly seed: bigint;

  constructor(p: TieBreakParams) {
    // Validation checks the flag whatever the policy (step "policy names"); this guards library use.
    checkTieBreak(p.routingTieBreak);
    this.random = p.routingTieBreak === "random";
    this.seed = BigInt.asIntN(64, BigInt(p.seed));
  }

  /** Rank (0-based, in candidate order) of the tied candidate to take; draws only when count > 1. */
  pick(count: number): number {
    if (!this.random || count <= 1) return 0;
    // Created on first use, like every named stream, so runs without ties never create it.
    this.rng ??= new Rng(deriveStreamSeed(this.seed, "router"));
    return this.rng.intn(count);
  }
}
