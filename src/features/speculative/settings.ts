// Speculative decoding's settings (docs/speculative.md "Configuration"): `--speculative-config` (or
// the policy bundle's speculative_config) parsed, checked against the latency backend, and what
// proposing costs resolved. Everything is refused before the run starts.

import { UserError } from "../../util/errors.js";
import { AcceptanceTable } from "../../speculative/acceptance.js";
import { parseSpeculativeConfig, type SpeculativeConfig } from "../../speculative/config.js";
import type { SpeculationPlan } from "../../speculative/plan.js";
import type { FeatureContext } from "../feature.js";

/** Backends that price every decode as one token, so cannot price a verification step. */
const ONE_TOKEN_DECODES = new Set(["roofline", "seed-roofline"]);

/** The run's speculation plan from the config's JSON text ("" = off: null). */
export async function speculationPlan(text: string, context: FeatureContext): Promise<SpeculationPlan | null> {
  if (text === "") return null;
  const config = parseSpeculativeConfig(text);
  const { deployment, log } = context;
  if (ONE_TOKEN_DECODES.has(deployment.backend)) {
    throw new UserError(
      `--speculative-config: the ${deployment.backend} latency model prices every decode as one token and cannot price a verification step; use trained-physics or blackbox`,
    );
  }
  const heads = config.method === "eagle" || config.method === "eagle3" || config.method === "mtp";
  const targetLayers = heads ? await layersOf(config, context) : 0;
  const draft = config.method === "draft_model" ? await draftLatency(config, context) : null;
  const model = config.model ? `, model=${config.model}` : "";
  log.info(`Speculative decoding: method=${config.method}, num_speculative_tokens=${config.k}${model}`);
  return { config, table: new AcceptanceTable(config), targetLayers, draft, seed: deployment.seed };
}

/** The target's decoder layer count: EAGLE and MTP heads cost one of its layers per proposal. */
async function layersOf(config: SpeculativeConfig, { latency }: FeatureContext): Promise<number> {
  try {
    return await latency.targetLayers();
  } catch (e) {
    throw new UserError(
      `--speculative-config: method ${config.method} costs one decoder layer of the target per proposal, which needs the model's config.json: ${(e as Error).message}`,
    );
  }
}

/** The draft model's latency model, on the target's GPU at draft_tensor_parallel_size (default: the target's TP). */
async function draftLatency(
  config: SpeculativeConfig,
  { latency, deployment }: FeatureContext,
): Promise<SpeculationPlan["draft"]> {
  try {
    return await latency.latencyFor(config.model.toLowerCase(), config.draftTp || deployment.tp);
  } catch (e) {
    throw new UserError(`--speculative-config: draft model "${config.model}": ${(e as Error).message.split("\n")[0]}`);
  }
}
