// The speculative-decoding stage of a run (docs/speculative.md "Configuration"): parses
// `--speculative-config` (or the policy bundle's speculative_config), checks it against the
// latency backend, and resolves what proposing costs. Everything is refused before the run starts.

import path from "node:path";
import type { RunOptions } from "../config/runOptions.js";
import { resolveLatencyBackend } from "../latency/backends/resolve.js";
import type { ResolvedLatency } from "../latency/backends/backend.js";
import { parseArchConfig } from "../latency/archConfig.js";
import type { LatencyModel } from "../latency/model.js";
import { resolveModelConfig, type FetchLike } from "../latency/modelConfig.js";
import { UserError } from "../util/errors.js";
import type { Logger } from "../util/log.js";
import { AcceptanceTable } from "../speculative/acceptance.js";
import { parseSpeculativeConfig, type SpeculativeConfig } from "../speculative/config.js";
import type { SpeculationPlan } from "../speculative/plan.js";

export type { SpeculationPlan };

/** Backends that price every decode as one token, so cannot price a verification step. */
const ONE_TOKEN_DECODES = new Set(["roofline", "seed-roofline"]);

export async function resolveSpeculation(
  o: Readonly<RunOptions>,
  explicit: ReadonlySet<string>,
  lat: ResolvedLatency,
  log: Logger,
  fetchImpl?: FetchLike,
): Promise<SpeculationPlan | null> {
  if (o.speculativeConfig === "") return null;
  const config = parseSpeculativeConfig(o.speculativeConfig);
  if (ONE_TOKEN_DECODES.has(lat.backend)) {
    throw new UserError(
      `--speculative-config: the ${lat.backend} latency model prices every decode as one token and cannot price a verification step; use trained-physics or blackbox`,
    );
  }
  const heads = config.method === "eagle" || config.method === "eagle3" || config.method === "mtp";
  const targetLayers = heads ? await layersOf(o, config, log, fetchImpl) : 0;
  const draft = config.method === "draft_model" ? await draftLatency(o, explicit, lat, config, log, fetchImpl) : null;
  log.info(
    `Speculative decoding: method=${config.method}, num_speculative_tokens=${config.k}${config.model ? `, model=${config.model}` : ""}`,
  );
  return { config, table: new AcceptanceTable(config), targetLayers, draft, seed: BigInt.asIntN(64, BigInt(o.seed)) };
}

/** The target's decoder layer count, from its config.json. */
async function layersOf(
  o: Readonly<RunOptions>,
  config: SpeculativeConfig,
  log: Logger,
  fetchImpl?: FetchLike,
): Promise<number> {
  try {
    const r = await resolveModelConfig({
      model: o.model,
      modelConfigFolder: o.modelConfigFolder,
      defaultsDir: path.dirname(o.defaultsFilepath),
      logger: log,
      ...(fetchImpl ? { fetchImpl } : {}),
    });
    const layers = parseArchConfig(r.text, o.model, r.path, r.exactName).numLayers;
    if (!(layers >= 1)) throw new Error(`no num_hidden_layers in ${r.path}`);
    return layers;
  } catch (e) {
    throw new UserError(
      `--speculative-config: method ${config.method} costs one decoder layer of the target per proposal, which needs the model's config.json: ${(e as Error).message}`,
    );
  }
}

/**
 * The draft model's latency model: the run's backend resolved again for the draft, on the
 * target's GPU and TP (draft_tensor_parallel_size when given).
 */
async function draftLatency(
  o: Readonly<RunOptions>,
  explicit: ReadonlySet<string>,
  lat: ResolvedLatency,
  config: SpeculativeConfig,
  log: Logger,
  fetchImpl?: FetchLike,
): Promise<() => LatencyModel> {
  const draft = {
    ...o,
    model: config.model.toLowerCase(),
    modelConfigFolder: "",
    hardware: lat.hardware,
    tp: config.draftTp || lat.tp,
    totalKvBlocks: lat.totalKvBlocks,
  };
  const given = new Set(explicit);
  given.add("hardware");
  given.add("tp");
  given.delete("totalKvBlocks");
  try {
    const d = await resolveLatencyBackend(draft, given, log, fetchImpl);
    d.build();
    return d.build;
  } catch (e) {
    throw new UserError(`--speculative-config: draft model "${config.model}": ${(e as Error).message.split("\n")[0]}`);
  }
}
