// The PD options checked in BLIS's order, whether or not PD is on (docs/prefill-decode.md
// "Validation order"): a bad value is a mistake even where it has no effect.

import { latencyBackends, listedBackends } from "../../latency/backends/backend.js";
import { parseRoutingScorers } from "../../config/flagLists.js";
import { pdDeciders, deciderName } from "../../pd/deciders.js";
import { POOL_OVERRIDE_KEYS } from "../../pd/options.js";
import { pdEnabled, validateTopology, type PoolCounts } from "../../pd/topology.js";
import type { ScorerSpec } from "../../cluster/routing/context.js";
import { UserError } from "../../util/errors.js";
import type { Logger } from "../../util/log.js";
import type { PdParams } from "./params.js";

const ENCODE_DECIDERS = ["always", "multimodal", "never"];

/** The pool sizes the options give. */
export function poolCounts(p: PdParams): PoolCounts {
  return {
    prefill: p.prefillInstances,
    decode: p.decodeInstances,
    shared: p.prefillDecodeInstances,
    encode: p.encodeInstances,
  };
}

/** Checks the PD options in order; warnings name options that have no effect. */
export function validatePd(p: PdParams, { explicit, log }: { explicit: ReadonlySet<string>; log: Logger }): void {
  const counts = poolCounts(p);
  if (p.prefillInstances < 0) throw new UserError(`--prefill-instances must be >= 0, got ${p.prefillInstances}`);
  if (p.decodeInstances < 0) throw new UserError(`--decode-instances must be >= 0, got ${p.decodeInstances}`);
  if (p.prefillDecodeInstances < 0)
    throw new UserError(`--prefill-decode-instances must be >= 0, got ${p.prefillDecodeInstances}`);
  const decider = deciderName(p.pdDecider);
  if (!pdDeciders.has(decider))
    throw new UserError(`Unknown PD decider "${p.pdDecider}". Valid: ${pdDeciders.names().join(", ")}`);
  validateTopology(counts, p.numInstances);
  const on = pdEnabled(counts);
  checkTransfer(p);
  checkDecider(p, decider, on, explicit, log);
  checkEncode(p, log);
  if (!on && POOL_OVERRIDE_KEYS.some((k) => explicit.has(k))) {
    log.warn(
      "per-pool hardware flags (--prefill-tp, --decode-tp, etc.) have no effect when --prefill-instances=0 (disaggregation is disabled)",
    );
  }
  if (on) for (const role of ["prefill", "decode"] as const) checkPoolOverrides(p, explicit, role);
  poolScorers(p, "prefill");
  poolScorers(p, "decode");
  if (p.pdTransferContention && !on) {
    throw new UserError(
      "--pd-transfer-contention requires PD disaggregation (--prefill-instances, --decode-instances, or --prefill-decode-instances must be set)",
    );
  }
}

/** Bandwidth and base latency; checked on every run (BLIS only with prefill-only instances). */
function checkTransfer(p: PdParams): void {
  const bw = p.pdTransferBandwidth;
  if (!Number.isFinite(bw) || bw <= 0)
    throw new UserError(`--pd-transfer-bandwidth must be a finite positive number, got ${bw.toFixed(6)}`);
  const base = p.pdTransferBaseLatency;
  if (!Number.isFinite(base) || base < 0) {
    throw new UserError(`--pd-transfer-base-latency must be a finite non-negative number, got ${base.toFixed(6)}`);
  }
}

function checkDecider(p: PdParams, decider: string, on: boolean, explicit: ReadonlySet<string>, log: Logger): void {
  if (p.pdPrefixThreshold < 0) throw new UserError(`--pd-prefix-threshold must be >= 0, got ${p.pdPrefixThreshold}`);
  if (decider !== "prefix-threshold" && explicit.has("pdPrefixThreshold")) {
    log.warn(
      `--pd-prefix-threshold=${p.pdPrefixThreshold} is ignored when --pd-decider="${p.pdDecider}" (only applies to the prefix-threshold decider)`,
    );
  }
  if (decider !== "never" && !on) {
    log.warn(
      `--pd-decider="${p.pdDecider}" has no effect because --prefill-instances=0 (disaggregation is disabled); ` +
        "set --prefill-instances and --decode-instances to enable",
    );
  }
}

function checkEncode(p: PdParams, log: Logger): void {
  if (p.encodeInstances < 0) throw new UserError(`--encode-instances must be >= 0, got ${p.encodeInstances}`);
  const d = p.encodeDecider === "" ? "never" : p.encodeDecider;
  if (!ENCODE_DECIDERS.includes(d))
    throw new UserError(`Unknown encode decider "${p.encodeDecider}". Valid: ${ENCODE_DECIDERS.join(", ")}`);
  if (d !== "never" && p.encodeInstances === 0) {
    throw new UserError(
      `--encode-decider="${p.encodeDecider}" requires --encode-instances > 0 (the encode pool is disabled)`,
    );
  }
  if (p.encodeInstances > 0 && d === "never") {
    log.warn(
      `--encode-instances=${p.encodeInstances} has no effect with --encode-decider="never" (no request visits the encode pool)`,
    );
  }
}

function checkPoolOverrides(p: PdParams, explicit: ReadonlySet<string>, role: "prefill" | "decode"): void {
  const tp = p[`${role}Tp`];
  if (explicit.has(`${role}Tp`) && tp <= 0) throw new UserError(`--${role}-tp must be > 0, got ${tp}`);
  const lm = p[`${role}LatencyModel`];
  if (lm !== "" && !latencyBackends.has(lm)) {
    throw new UserError(
      `--${role}-latency-model "${lm}" is not a recognized backend; valid: ${listedBackends().join(", ")}`,
    );
  }
  const mml = p[`${role}MaxModelLen`];
  if (explicit.has(`${role}MaxModelLen`) && mml <= 0)
    throw new UserError(`--${role}-max-model-len must be > 0 when set, got ${mml}`);
}

/** A pool's own weighted-routing scorers; null: the main routing's. */
export function poolScorers(p: PdParams, role: "prefill" | "decode"): ScorerSpec[] | null {
  try {
    return parseRoutingScorers(p[`${role}RoutingScorers`]);
  } catch (e) {
    if (e instanceof UserError)
      throw new UserError(e.message.replace("Invalid --routing-scorers:", `Invalid --${role}-routing-scorers:`));
    throw e;
  }
}
