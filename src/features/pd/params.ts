// The options of prefill/decode disaggregation as the feature reads them (docs/prefill-decode.md
// "Flags"): its own flags, the prefix-threshold decider's parameter it checks, and the cluster size
// its topology is checked against.

import { z } from "zod";
import { pdOptionsShape } from "../../pd/options.js";
import { prefixThresholdParams } from "../../pd/deciders.js";

export const pdParams = z.object({
  ...pdOptionsShape,
  /** The prefix-threshold decider's parameter (a decider option): checked here on every run. */
  ...prefixThresholdParams.shape,
  /** The run's --num-instances (a cluster option, not the feature's): the pools must fit in it. */
  numInstances: z.number().int().default(1),
});

export type PdParams = z.infer<typeof pdParams>;
