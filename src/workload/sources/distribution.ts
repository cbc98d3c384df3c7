// Distribution mode (docs/behavior.md "Sources and precedence"): CLI token flags → a one-client
// gaussian spec.

import { UserError } from "../../util/errors.js";
import { fmtV } from "../util/format.js";
import { dist, makeClient, makeSpec, type WorkloadSpec } from "../spec/types.js";

export interface DistributionFlags {
  rate: number;
  numRequests: number;
  prefixTokens: number;
  promptTokens: number;
  promptTokensStdev: number;
  promptTokensMin: number;
  promptTokensMax: number;
  outputTokens: number;
  outputTokensStdev: number;
  outputTokensMin: number;
  outputTokensMax: number;
  seed: bigint;
}

export const DEFAULT_DISTRIBUTION_FLAGS: Readonly<DistributionFlags> = {
  rate: 1.0,
  numRequests: 100,
  prefixTokens: 0,
  promptTokens: 512,
  promptTokensStdev: 256,
  promptTokensMin: 2,
  promptTokensMax: 7000,
  outputTokens: 512,
  outputTokensStdev: 256,
  outputTokensMin: 2,
  outputTokensMax: 7000,
  seed: 42n,
};

export function checkRateFlag(rate: number): void {
  if (!Number.isFinite(rate) || rate <= 0) throw new UserError(`--rate must be a finite value > 0, got ${fmtV(rate)}`);
}

/** `--num-requests` of the convert and compose commands (a cap they write into the spec). */
export function checkNumRequestsFlag(n: number): void {
  if (!(n > 0)) throw new UserError(`--num-requests must be > 0, got ${n}`);
}

/** The nine token numbers shared by distribution and preset modes. */
export interface TokenShape {
  prefixTokens: number;
  promptTokens: number;
  promptTokensStdev: number;
  promptTokensMin: number;
  promptTokensMax: number;
  outputTokens: number;
  outputTokensStdev: number;
  outputTokensMin: number;
  outputTokensMax: number;
}

/** Builds the synthesized spec of distribution and preset modes (no validation of the numbers). */
export function synthesizeGaussianSpec(
  clientId: string,
  shape: TokenShape,
  rate: number,
  numRequests: number,
  seed: bigint,
): WorkloadSpec {
  const client = makeClient({
    id: clientId,
    rate_fraction: 1.0,
    arrival: { process: "constant" },
    input_distribution: dist("gaussian", {
      mean: shape.promptTokens,
      std_dev: shape.promptTokensStdev,
      min: shape.promptTokensMin,
      max: shape.promptTokensMax,
    }),
    output_distribution: dist("gaussian", {
      mean: shape.outputTokens,
      std_dev: shape.outputTokensStdev,
      min: shape.outputTokensMin,
      max: shape.outputTokensMax,
    }),
  });
  if (shape.prefixTokens > 0) {
    client.prefix_group = "shared";
    client.prefix_length = shape.prefixTokens;
  }
  return makeSpec({
    version: "2",
    category: "language",
    seed,
    aggregate_rate: rate,
    num_requests: numRequests,
    clients: [client],
  });
}

/**
 * Distribution mode with its fatal checks (rate, then the mean/stdev range rule,
 * docs/behavior.md#w1).
 */
export function specFromDistribution(flags: Partial<DistributionFlags> = {}): WorkloadSpec {
  const f: DistributionFlags = { ...DEFAULT_DISTRIBUTION_FLAGS, ...flags };
  checkRateFlag(f.rate);
  // BLIS checks the stdev against [min, max] as if it were a length; a stdev of 0 (constant
  // lengths) is accepted here whatever the range (an extension: BLIS refuses it when min > 0).
  const outOfRange = (mean: number, std: number, min: number, max: number): boolean =>
    mean > max || mean < min || (std !== 0 && (std > max || std < min));
  if (outOfRange(f.promptTokens, f.promptTokensStdev, f.promptTokensMin, f.promptTokensMax)) {
    throw new UserError(
      "prompt-tokens and prompt-tokens-stdev should be in range [prompt-tokens-min, prompt-tokens-max]",
    );
  }
  if (outOfRange(f.outputTokens, f.outputTokensStdev, f.outputTokensMin, f.outputTokensMax)) {
    throw new UserError(
      "output-tokens and output-tokens-stdev should be in range [output-tokens-min, output-tokens-max]",
    );
  }
  // The range rule above keeps means and stdevs within [min, max]; a negative min is the one value
  // left that the spec validation would reject, so name the flag here (docs/behavior.md#w23).
  if (f.promptTokensMin < 0) throw new UserError(`--prompt-tokens-min must be >= 0, got ${f.promptTokensMin}`);
  if (f.outputTokensMin < 0) throw new UserError(`--output-tokens-min must be >= 0, got ${f.outputTokensMin}`);
  return synthesizeGaussianSpec("distribution", f, f.rate, f.numRequests, f.seed);
}
