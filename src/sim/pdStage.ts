// Stage: the prefill/decode disaggregation options, checked in BLIS's order after the policy
// bundle (docs/prefill-decode.md "Validation order"), then resolved: the model architecture for
// transfer sizing and the per-pool latency backends.

import type { RunOptions } from "../config/runOptions.js";
import { resolveLatencyBackend } from "../latency/backends/resolve.js";
import { latencyBackends, listedBackends, type ResolvedLatency } from "../latency/backends/backend.js";
import { parseRoutingScorers } from "../config/flagLists.js";
import type { FetchLike } from "../latency/modelConfig.js";
import { servedModelConfig } from "./latencyServices.js";
import { parseArchConfig } from "../latency/archConfig.js";
import { pdDeciders, deciderName } from "../pd/deciders.js";
import { POOL_OVERRIDE_KEYS } from "../pd/options.js";
import { pdEnabled, validateTopology, type PoolCounts } from "../pd/topology.js";
import { bytesPerToken } from "../pd/transfer.js";
import type { PdConfig, PoolInstanceSettings, PoolRouting } from "../pd/config.js";
import { routingPolicies } from "../cluster/routing/routing.js";
import { chooseScorers } from "../cluster/scorers/scorer.js";
import type { RoutingSettings } from "./simConfig.js";
import type { ScorerSpec } from "../cluster/routing/context.js";
import { ConstructionError, UserError } from "../util/errors.js";
import type { Logger } from "../util/log.js";
import { flagName } from "./parseOptions.js";

const ENCODE_DECIDERS = ["always", "multimodal", "never"];

/** Checks the PD options; returns the pool counts. */
export function validatePd(o: Readonly<RunOptions>, explicit: ReadonlySet<string>, log: Logger): PoolCounts {
  const counts: PoolCounts = {
    prefill: o.prefillInstances,
    decode: o.decodeInstances,
    shared: o.prefillDecodeInstances,
    encode: o.encodeInstances,
  };
  for (const k of ["prefillInstances", "decodeInstances", "prefillDecodeInstances"] as const) {
    if (o[k] < 0) throw new UserError(`${flagName(k)} must be >= 0, got ${o[k]}`);
  }
  const decider = deciderName(o.pdDecider);
  if (!pdDeciders.has(decider))
    throw new UserError(`Unknown PD decider "${o.pdDecider}". Valid: ${pdDeciders.names().join(", ")}`);
  validateTopology(counts, o.numInstances);
  const on = pdEnabled(counts);
  // Checked whether or not PD is on: a bad value is a mistake even where it has no effect.
  checkTransfer(o);
  if (o.pdPrefixThreshold < 0) throw new UserError(`--pd-prefix-threshold must be >= 0, got ${o.pdPrefixThreshold}`);
  if (decider !== "prefix-threshold" && explicit.has("pdPrefixThreshold")) {
    log.warn(
      `--pd-prefix-threshold=${o.pdPrefixThreshold} is ignored when --pd-decider="${o.pdDecider}" (only applies to the prefix-threshold decider)`,
    );
  }
  if (decider !== "never" && !on) {
    log.warn(
      `--pd-decider="${o.pdDecider}" has no effect because --prefill-instances=0 (disaggregation is disabled); ` +
        "set --prefill-instances and --decode-instances to enable",
    );
  }
  checkEncode(o, log);
  if (!on && POOL_OVERRIDE_KEYS.some((k) => explicit.has(k))) {
    log.warn(
      "per-pool hardware flags (--prefill-tp, --decode-tp, etc.) have no effect when --prefill-instances=0 (disaggregation is disabled)",
    );
  }
  if (on) for (const role of ["prefill", "decode"] as const) checkPoolOverrides(o, explicit, role);
  poolScorers(o, "prefill");
  poolScorers(o, "decode");
  if (o.pdTransferContention && !on) {
    throw new UserError(
      "--pd-transfer-contention requires PD disaggregation (--prefill-instances, --decode-instances, or --prefill-decode-instances must be set)",
    );
  }
  return counts;
}

/** Bandwidth and base latency; checked on every run (BLIS only with prefill-only instances). */
function checkTransfer(o: Readonly<RunOptions>): void {
  const bw = o.pdTransferBandwidth;
  if (!Number.isFinite(bw) || bw <= 0)
    throw new UserError(`--pd-transfer-bandwidth must be a finite positive number, got ${bw.toFixed(6)}`);
  const base = o.pdTransferBaseLatency;
  if (!Number.isFinite(base) || base < 0) {
    throw new UserError(`--pd-transfer-base-latency must be a finite non-negative number, got ${base.toFixed(6)}`);
  }
}

function checkEncode(o: Readonly<RunOptions>, log: Logger): void {
  if (o.encodeInstances < 0) throw new UserError(`--encode-instances must be >= 0, got ${o.encodeInstances}`);
  const d = o.encodeDecider === "" ? "never" : o.encodeDecider;
  if (!ENCODE_DECIDERS.includes(d))
    throw new UserError(`Unknown encode decider "${o.encodeDecider}". Valid: ${ENCODE_DECIDERS.join(", ")}`);
  if (d !== "never" && o.encodeInstances === 0) {
    throw new UserError(
      `--encode-decider="${o.encodeDecider}" requires --encode-instances > 0 (the encode pool is disabled)`,
    );
  }
  if (o.encodeInstances > 0 && d === "never") {
    log.warn(
      `--encode-instances=${o.encodeInstances} has no effect with --encode-decider="never" (no request visits the encode pool)`,
    );
  }
}

function checkPoolOverrides(o: Readonly<RunOptions>, explicit: ReadonlySet<string>, role: "prefill" | "decode"): void {
  const tp = o[`${role}Tp`];
  if (explicit.has(`${role}Tp`) && tp <= 0) throw new UserError(`--${role}-tp must be > 0, got ${tp}`);
  const lm = o[`${role}LatencyModel`];
  if (lm !== "" && !latencyBackends.has(lm)) {
    throw new UserError(
      `--${role}-latency-model "${lm}" is not a recognized backend; valid: ${listedBackends().join(", ")}`,
    );
  }
  const mml = o[`${role}MaxModelLen`];
  if (explicit.has(`${role}MaxModelLen`) && mml <= 0)
    throw new UserError(`--${role}-max-model-len must be > 0 when set, got ${mml}`);
}

function poolScorers(o: Readonly<RunOptions>, role: "prefill" | "decode"): ScorerSpec[] | null {
  try {
    return parseRoutingScorers(o[`${role}RoutingScorers`]);
  } catch (e) {
    if (e instanceof UserError)
      throw new UserError(e.message.replace("Invalid --routing-scorers:", `Invalid --${role}-routing-scorers:`));
    throw e;
  }
}

/** Resolves the PD setup (null when PD is off): transfer sizing, pool policies, pool instances. */
export async function resolvePd(
  o: Readonly<RunOptions>,
  explicit: ReadonlySet<string>,
  counts: PoolCounts,
  lat: ResolvedLatency,
  routing: RoutingSettings,
  log: Logger,
  fetchImpl?: FetchLike,
): Promise<PdConfig | null> {
  if (!pdEnabled(counts)) return null;
  const prefillTp = explicit.has("prefillTp") ? o.prefillTp : lat.tp;
  const perToken = bytesPerToken(await kvShape(o, log, fetchImpl), prefillTp);
  const pd: PdConfig = {
    counts,
    decider: deciderName(o.pdDecider),
    buildDecider: pdDeciders.bind(deciderName(o.pdDecider), o),
    cacheSignalDelay: o.cacheSignalDelay,
    transfer: {
      bytesPerToken: perToken,
      blockSize: o.blockSizeInTokens,
      bandwidth: o.pdTransferBandwidth,
      baseLatency: o.pdTransferBaseLatency,
      contention: o.pdTransferContention,
    },
    prefillRouting: poolRouting(poolScorers(o, "prefill"), routing, o),
    decodeRouting: poolRouting(poolScorers(o, "decode"), routing, o),
    prefillPool: await poolSettings({ ...o, totalKvBlocks: lat.totalKvBlocks }, explicit, "prefill", log, fetchImpl),
    decodePool: await poolSettings({ ...o, totalKvBlocks: lat.totalKvBlocks }, explicit, "decode", log, fetchImpl),
  };
  log.info(
    `PD disaggregation enabled: ${counts.prefill} prefill, ${counts.decode} decode, ${counts.shared} shared (prefill-decode) instances, decider="${pd.decider}"`,
  );
  return pd;
}

/**
 * A pool's routing: weighted over its own scorers when given, else the main routing policy's kind
 * with the main scorers; parameters from `source`.
 */
export function poolRouting(
  scorers: readonly ScorerSpec[] | null,
  main: RoutingSettings,
  source: Readonly<Record<string, unknown>>,
): PoolRouting {
  if (scorers === null) return { build: routingPolicies.bind(main.policy, source), scorers: main.scorers };
  return { build: routingPolicies.bind("weighted", source), scorers: chooseScorers(scorers, source) };
}

/** The model quantities of transfer sizing, from the model's config.json (needed with any backend). */
async function kvShape(
  o: Readonly<RunOptions>,
  log: Logger,
  fetchImpl?: FetchLike,
): Promise<Parameters<typeof bytesPerToken>[0]> {
  let text: string;
  let where: string;
  let exact: boolean;
  try {
    const r = await servedModelConfig(o, log, fetchImpl);
    text = r.text;
    where = r.path;
    exact = r.exactName;
  } catch (e) {
    throw new UserError(
      `PD disaggregation requires model architecture for KV transfer sizing: ${(e as Error).message}`,
    );
  }
  const a = parseArchConfig(text, o.model, where, exact);
  if (!(a.activationBytes > 0)) {
    throw new UserError(
      `PD disaggregation: could not determine model precision (BytesPerParam=${a.activationBytes}) from ${where} — ensure torch_dtype or dtype is present in config.json`,
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

/**
 * A pool's own latency backend, KV capacity and max-model-len when one of its override flags is
 * given: the global resolution rerun with the pool's TP, GPU, backend and max-model-len. `o`
 * carries the run's resolved KV count, the fallback of a backend without a count of its own.
 */
async function poolSettings(
  o: Readonly<RunOptions>,
  explicit: ReadonlySet<string>,
  role: "prefill" | "decode",
  log: Logger,
  fetchImpl?: FetchLike,
): Promise<PoolInstanceSettings | null> {
  const keys = {
    tp: `${role}Tp`,
    hardware: `${role}Hardware`,
    latencyModel: `${role}LatencyModel`,
    maxModelLen: `${role}MaxModelLen`,
  } as const;
  const given = (Object.keys(keys) as (keyof typeof keys)[]).filter(
    (k) => explicit.has(keys[k]) && o[keys[k]] !== "" && o[keys[k]] !== 0,
  );
  if (given.length === 0) return null;
  const po: RunOptions = { ...o };
  const pe = new Set(explicit);
  for (const k of given) {
    (po as Record<string, unknown>)[k] = o[keys[k]];
    pe.add(k);
  }
  let r: ResolvedLatency;
  try {
    r = await resolveLatencyBackend(po, pe, log, fetchImpl);
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
