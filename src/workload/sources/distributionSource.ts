// Distribution mode (--workload distribution, the default; docs/behavior.md "Sources and
// precedence"): one client with gaussian prompt and output lengths from the token flags.

import { z } from "zod";
import { UserError } from "../../util/errors.js";
import type { ParamFlag } from "../../util/policyRegistry.js";
import type { WorkloadSpec } from "../spec/types.js";
import { checkRateFlag, specFromDistribution } from "./distribution.js";
import { isDistributionMode, sharedWorkloadShape } from "./sharedParams.js";
import type { SourceContext, SpecOutput, WorkloadSource } from "./source.js";

export const distributionShape = {
  prefixTokens: z.number().int().default(0),
  promptTokens: z.number().int().default(512),
  promptTokensStdev: z.number().int().default(256),
  promptTokensMin: z.number().int().default(2),
  promptTokensMax: z.number().int().default(7000),
  outputTokens: z.number().int().default(512),
  outputTokensStdev: z.number().int().default(256),
  outputTokensMin: z.number().int().default(2),
  outputTokensMax: z.number().int().default(7000),
};

export const distributionParams = z.object({
  ...distributionShape,
  workload: sharedWorkloadShape.workload,
  rate: sharedWorkloadShape.rate,
  numRequests: sharedWorkloadShape.numRequests,
});
export type DistributionParams = z.infer<typeof distributionParams>;

/**
 * Today's BLIS rejects a length minimum below 1 in distribution mode, since it allows empty
 * prompts or outputs. A fixed length (standard deviation 0, mean ≥ 1) never reaches the minimum,
 * and seed-era command lines ask for one with a minimum of 0 (the standard deviation must lie in
 * [min, max], docs/behavior.md#w1), so that form is kept (docs/behavior.md#w26).
 */
function checkLengthMinimum(flag: string, min: number, stdev: number, mean: number): void {
  if (min >= 1 || (stdev === 0 && mean >= 1)) return;
  throw new UserError(`${flag} must be >= 1, got ${min}`);
}

/** The one-client spec of distribution mode, after its checks (rate, then the length minimums). */
export function distributionSpec(p: DistributionParams, seed: bigint): WorkloadSpec {
  checkRateFlag(p.rate);
  checkLengthMinimum("--prompt-tokens-min", p.promptTokensMin, p.promptTokensStdev, p.promptTokens);
  checkLengthMinimum("--output-tokens-min", p.outputTokensMin, p.outputTokensStdev, p.outputTokens);
  return specFromDistribution({
    rate: p.rate,
    numRequests: p.numRequests,
    prefixTokens: p.prefixTokens,
    promptTokens: p.promptTokens,
    promptTokensStdev: p.promptTokensStdev,
    promptTokensMin: p.promptTokensMin,
    promptTokensMax: p.promptTokensMax,
    outputTokens: p.outputTokens,
    outputTokensStdev: p.outputTokensStdev,
    outputTokensMin: p.outputTokensMin,
    outputTokensMax: p.outputTokensMax,
    seed,
  });
}

function resolve(p: DistributionParams, context: SourceContext): SpecOutput {
  const spec = distributionSpec(p, context.seed);
  return { kind: "spec", spec, maxRequests: p.numRequests, horizon: context.horizon, closedLoop: false };
}

const tokenFlag = (key: string, flag: string, help: string): ParamFlag => ({
  key,
  flag,
  type: "int",
  group: "workload",
  help,
});

/** The token-length flags, which closed-loop virtual users take too. */
export const DISTRIBUTION_FLAGS: readonly ParamFlag[] = [
  tokenFlag("prefixTokens", "--prefix-tokens", "shared prefix length"),
  tokenFlag("promptTokens", "--prompt-tokens", "mean prompt length"),
  tokenFlag(
    "promptTokensStdev",
    "--prompt-tokens-stdev",
    "prompt standard deviation (must lie within [min, max], as in BLIS)",
  ),
  tokenFlag("promptTokensMin", "--prompt-tokens-min", "prompt minimum"),
  tokenFlag("promptTokensMax", "--prompt-tokens-max", "prompt maximum"),
  tokenFlag("outputTokens", "--output-tokens", "mean output length"),
  tokenFlag("outputTokensStdev", "--output-tokens-stdev", "output standard deviation (must lie within [min, max])"),
  tokenFlag("outputTokensMin", "--output-tokens-min", "output minimum"),
  tokenFlag("outputTokensMax", "--output-tokens-max", "output maximum"),
];

export const distributionSource: WorkloadSource<DistributionParams> = {
  name: "distribution",
  description: "one client with gaussian prompt and output lengths from the token flags",
  params: distributionParams,
  flags: DISTRIBUTION_FLAGS,
  rank: 500,
  selects: (p) => isDistributionMode(p.workload),
  resolve,
};
