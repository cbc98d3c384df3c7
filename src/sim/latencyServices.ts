// What the latency stage offers features (src/features/feature.ts LatencyServices): the served
// model's architecture and the run's backend resolved again for another model. They read the run
// options here, so a feature sees only the answers.

import path from "node:path";
import type { RunOptions } from "../config/runOptions.js";
import { resolveLatencyBackend } from "../latency/backends/resolve.js";
import type { ResolvedLatency } from "../latency/backends/backend.js";
import { parseArchConfig } from "../latency/archConfig.js";
import { resolveModelConfig, type FetchLike } from "../latency/modelConfig.js";
import type { Logger } from "../util/log.js";
import type { LatencyOverrides, LatencyServices } from "../features/feature.js";

/** What resolving the latency backend again starts from: the run's options and resolution. */
interface ResolutionInputs {
  o: Readonly<RunOptions>;
  explicit: ReadonlySet<string>;
  lat: ResolvedLatency;
  log: Logger;
  fetchImpl: FetchLike | undefined;
}

export function latencyServices(
  o: Readonly<RunOptions>,
  explicit: ReadonlySet<string>,
  lat: ResolvedLatency,
  log: Logger,
  fetchImpl?: FetchLike,
): LatencyServices {
  return {
    targetLayers: () => targetLayers(o, log, fetchImpl),
    latencyFor: (model, tp) => latencyFor({ o, explicit, lat, log, fetchImpl }, model, tp),
    modelConfig: () => servedModelConfig(o, log, fetchImpl),
    resolveWith: (overrides) => resolveWith({ o, explicit, lat, log, fetchImpl }, overrides),
  };
}

/**
 * The run's resolution again with `overrides` given explicitly; the run's resolved KV count stands
 * in for --total-kv-blocks (the fallback of a backend without a count of its own).
 */
function resolveWith(run: ResolutionInputs, overrides: LatencyOverrides): Promise<ResolvedLatency> {
  const options = { ...run.o, totalKvBlocks: run.lat.totalKvBlocks, ...overrides };
  const given = new Set([...run.explicit, ...Object.keys(overrides)]);
  return resolveLatencyBackend(options, given, run.log, run.fetchImpl);
}

/** The served model's config.json: --model-config-folder, the bundled configs, or a download. */
export function servedModelConfig(
  o: Readonly<RunOptions>,
  log: Logger,
  fetchImpl?: FetchLike,
): ReturnType<typeof resolveModelConfig> {
  return resolveModelConfig({
    model: o.model,
    modelConfigFolder: o.modelConfigFolder,
    defaultsDir: path.dirname(o.defaultsFilepath),
    logger: log,
    ...(fetchImpl ? { fetchImpl } : {}),
  });
}

/** The served model's decoder layer count, from its config.json. */
async function targetLayers(o: Readonly<RunOptions>, log: Logger, fetchImpl?: FetchLike): Promise<number> {
  const r = await servedModelConfig(o, log, fetchImpl);
  const layers = parseArchConfig(r.text, o.model, r.path, r.exactName).numLayers;
  if (!(layers >= 1)) throw new Error(`no num_hidden_layers in ${r.path}`);
  return layers;
}

/**
 * The run's backend for `model` on the run's GPU at `tp` GPUs, with the run's KV capacity (its
 * model folder and an explicit --total-kv-blocks are the served model's, so not passed on). One
 * model is built now so a bad configuration is refused before the run.
 */
async function latencyFor(run: ResolutionInputs, model: string, tp: number): Promise<ResolvedLatency["build"]> {
  const { o, lat } = run;
  const options = { ...o, model, modelConfigFolder: "", hardware: lat.hardware, tp, totalKvBlocks: lat.totalKvBlocks };
  const given = new Set(run.explicit);
  given.add("hardware");
  given.add("tp");
  given.delete("totalKvBlocks");
  const resolved = await resolveLatencyBackend(options, given, run.log, run.fetchImpl);
  resolved.build();
  return resolved.build;
}
