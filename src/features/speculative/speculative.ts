// Speculative decoding as a feature of a run (docs/speculative.md): vLLM's `--speculative-config`,
// one part in every decoding instance, its metrics under the cluster block's `speculative` key.

import { z } from "zod";
import type { Feature } from "../feature.js";
import type { SpeculationPlan } from "../../speculative/plan.js";
import { speculationPlan } from "./settings.js";
import { SpeculationExtension } from "./extension.js";
import { renderSpeculative } from "../../metrics/speculative.js";

const params = z.object({
  /** vLLM's JSON speculative config; "" = off. */
  speculativeConfig: z.string().default(""),
});

export const speculativeDecoding: Feature<z.infer<typeof params>, SpeculationPlan> = {
  name: "speculative-decoding",
  description: "draft proposals verified in one step, acceptance drawn per position (vLLM's --speculative-config)",
  params,
  flags: [
    {
      key: "speculativeConfig",
      flag: "--speculative-config",
      type: "string",
      help: `speculative decoding as vLLM's JSON: {"method": "ngram"|"eagle"|"eagle3"|"mtp"|"draft_model", "num_speculative_tokens": k, "acceptance_rate": a, ...} (docs/speculative.md)`,
      group: "cluster",
      bundle: "speculative_config",
      bundleObject: true,
    },
  ],
  metricsKey: "speculative",
  settings: (p, context) => speculationPlan(p.speculativeConfig, context),
  start(plan) {
    const extension = new SpeculationExtension(plan);
    return {
      extension,
      results: ({ users }) => extension.results(users),
      stdout: ({ cluster: c }) =>
        c.speculative !== undefined ? renderSpeculative(c.speculative, { mean: c.itl_mean_ms, p99: c.itl_p99_ms }) : "",
    };
  },
};
