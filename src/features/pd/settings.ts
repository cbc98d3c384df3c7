// The PD setup of one run (docs/prefill-decode.md), derived once when the run is configured: the
// KV bytes a transfer moves per token, the pools' routers and decider, and each pool's own latency
// model, KV capacity and max-model-len when one of its override flags is given.

import { parseArchConfig } from "../../latency/archConfig.js";
import { pdDeciders, deciderName } from "../../pd/deciders.js";
import { pdEnabled } from "../../pd/topology.js";
import { bytesPerToken } from "../../pd/transfer.js";
import type { PdConfig, PoolInstanceSettings } from "../../pd/config.js";
import type { ResolvedLatency } from "../../latency/backends/backend.js";
import { ConstructionError, UserError } from "../../util/errors.js";
import type { FeatureContext, LatencyOverrides, LatencyServices } from "../feature.js";
import type { PdParams } from "./params.js";
import { poolCounts, poolScorers } from "./validate.js";

/** The run's PD setup; null when no pool is configured (the co-located cluster). */
export async function pdSettings(p: PdParams, context: FeatureContext): Promise<PdConfig | null> {
  const counts = poolCounts(p);
  if (!pdEnabled(counts)) return null;
  const { explicit, log, deployment: d, latency, policies } = context;
  const prefillTp = explicit.has("prefillTp") ? p.prefillTp : d.tp;
  const perToken = bytesPerToken(await kvShape(latency, d.model), prefillTp);
  const decider = deciderName(p.pdDecider);
  const pd: PdConfig = {
    counts,
    numInstances: d.numInstances,
    blockSize: d.blockSize,
    decider,
    buildDecider: policies.bind(pdDeciders, decider),
    cacheSignalDelay: policies.cacheSignalDelay,
    transfer: {
      bytesPerToken: perToken,
      blockSize: d.blockSize,
      bandwidth: p.pdTransferBandwidth,
      baseLatency: p.pdTransferBaseLatency,
      contention: p.pdTransferContention,
    },
    prefillPolicy: policies.routingPolicy(poolScorers(p, "prefill")),
    decodePolicy: policies.routingPolicy(poolScorers(p, "decode")),
    prefillPool: await poolSettings(p, context, "prefill"),
    decodePool: await poolSettings(p, context, "decode"),
  };
  log.info(
    `PD disaggregation enabled: ${counts.prefill} prefill, ${counts.decode} decode, ${counts.shared} shared (prefill-decode) instances, decider="${pd.decider}"`,
  );
  return pd;
}

/** The model quantities of transfer sizing, from the model's config.json (needed with any backend). */
async function kvShape(latency: LatencyServices, model: string): Promise<Parameters<typeof bytesPerToken>[0]> {
  let config: Awaited<ReturnType<LatencyServices["modelConfig"]>>;
  try {
    config = await latency.modelConfig();
  } catch (e) {
    throw new UserError(
      `PD disaggregation requires model architecture for KV transfer sizing: ${(e as Error).message}`,
    );
  }
  const a = parseArchConfig(config.text, model, config.path, config.exactName);
  if (!(a.activationBytes > 0)) {
    throw new UserError(
      `PD disaggregation: could not determine model precision (BytesPerParam=${a.activationBytes}) from ${config.path} — ensure torch_dtype or dtype is present in config.json`,
    );
  }
  return {
    numLayers: a.numLayers,
    hiddenSize: a.hiddenSize,
    numHeads: a.numHeads,
    numKvHeads: a.numKvHeads,
    bytes: a.activationBytes,
    headDim: a.headDim,
    kvLoraRank: a.kvLoraRank,
    qkRopeHeadDim: a.qkRopeHeadDim,
  };
}

/** The override flags a pool gave (a value of "" or 0 leaves the global setting). */
function poolOverrides(p: PdParams, explicit: ReadonlySet<string>, role: "prefill" | "decode"): LatencyOverrides {
  const out: LatencyOverrides = {};
  const given = (key: string, value: string | number): boolean => explicit.has(key) && value !== "" && value !== 0;
  if (given(`${role}Tp`, p[`${role}Tp`])) out.tp = p[`${role}Tp`];
  if (given(`${role}Hardware`, p[`${role}Hardware`])) out.hardware = p[`${role}Hardware`];
  if (given(`${role}LatencyModel`, p[`${role}LatencyModel`])) out.latencyModel = p[`${role}LatencyModel`];
  if (given(`${role}MaxModelLen`, p[`${role}MaxModelLen`])) out.maxModelLen = p[`${role}MaxModelLen`];
  return out;
}

/**
 * A pool's own latency backend, KV capacity and max-model-len when one of its override flags is
 * given (the global resolution rerun with them); null otherwise.
 */
async function poolSettings(
  p: PdParams,
  { explicit, log, latency }: FeatureContext,
  role: "prefill" | "decode",
): Promise<PoolInstanceSettings | null> {
  const overrides = poolOverrides(p, explicit, role);
  if (Object.keys(overrides).length === 0) return null;
  let r: ResolvedLatency;
  try {
    r = await latency.resolveWith(overrides);
    r.build();
  } catch (e) {
    if (e instanceof UserError || e instanceof ConstructionError) {
      throw new UserError(`--${role}-tp/--${role}-hardware: latency model for the ${role} pool: ${e.message}`);
    }
    throw e;
  }
  log.info(`${role} pool: ${r.backend} on ${r.hardware || "?"} TP ${r.tp}, ${r.totalKvBlocks} KV blocks`);
  return { latency: r.build, totalKvBlocks: r.totalKvBlocks, maxModelLen: r.maxModelLen };
}
