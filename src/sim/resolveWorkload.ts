import fs from "node:fs";
import type { SloTargets } from "../metrics/sloTargets.js";
import type { RunOptions } from "../config/runOptions.js";
import { UserError } from "../util/errors.js";
import type { Logger } from "../util/log.js";
import {
  applySpecFlags,
  ArrayRequestSource,
  checkGenerationBound,
  checkRateFlag,
  createWorkload,
  decodeWorkloadSpec,
  generationEnd,
  loadTraceV2,
  loadWorkloadSpec,
  readPresetsFromDefaults,
  specFromCsvTraceMode,
  specFromDistribution,
  specFromPreset,
  traceReplaySource,
  type RequestSource,
  type SessionPlan,
  type WorkloadRequest,
  type WorkloadSpec,
} from "../workload/index.js";
import type { AdapterRef } from "../lora/resolve.js";
import { requestAdapterRefs, specAdapterRefs } from "../lora/refs.js";
import { checkMemoryBudget, requestBound } from "./memoryBudget.js";
import { MAX_INSTANCES } from "./validateOptions.js";

export interface ResolvedWorkload {
  source: RequestSource;
  /** Effective simulation horizon (a spec's horizon replaces the default). */
  horizon: number;
  /** Most requests the source produces, when known (0 = bounded by the horizon only); for progress. */
  requestCap: number;
  /** Closed-loop sessions and virtual users (null = open loop). */
  sessions?: SessionPlan | null;
  /** Goodput targets of the workload spec or trace header (docs/gateway.md "Goodput"). */
  sloTargets?: { spec?: Record<string, SloTargets>; header?: Record<string, SloTargets> };
  /** Some request may carry a client deadline (--timeout or a spec's `timeout` key). */
  deadlines?: boolean;
  /** The LoRA adapters the workload names (checked against the declared ones). */
  adapterRefs?: AdapterRef[];
}

const prefixed = (prefix: string, e: unknown): never => {
  if (e instanceof UserError) throw new UserError(`${prefix}${e.message}`);
  throw e;
};

/** Workload selection and generation for `run` (docs/behavior.md "Sources and precedence"). */
export function resolveWorkload(o: Readonly<RunOptions>, explicit: ReadonlySet<string>, log: Logger): ResolvedWorkload {
  const seed = BigInt.asIntN(64, BigInt(o.seed));
  // Extension: request-by-request replay of a trace v2 (header YAML + data CSV).
  checkConcurrencyFlags(o, explicit);
  if (o.replayTrace !== "") return replayTrace(o, explicit, seed);

  const { spec, maxRequests, horizon } = selectSpec(o, explicit, seed, log);
  if (maxRequests < 0 && explicit.has("numRequests") && o.workloadSpec !== "") {
    throw new UserError(`--num-requests must be 0 or more with --workload-spec, got ${maxRequests}`);
  }
  // A spec whose clients all have finite lifecycle windows (e.g. inference-perf stages) bounds
  // itself: generation stops at the end of its last window.
  checkGenerationBound(maxRequests, horizon, spec);
  // Bounded by the horizon, a negative count would reach the generator, whose message names no flag.
  if (maxRequests < 0 && explicit.has("numRequests"))
    throw new UserError(`--num-requests must be 0 or more, got ${maxRequests}`);
  if (maxRequests <= 0 && !(horizon < 2 ** 63) && spec.mooncake_trace === undefined) {
    log.info(`no num_requests or horizon: generation ends with the last lifecycle window at ${generationEnd(spec)} µs`);
  }
  // Before generating anything: closed-loop users are generated up front. An instance count over
  // the limit is refused later with its own message; it counts here at the limit.
  const instances = Math.min(Math.max(o.numInstances, 1), MAX_INSTANCES);
  checkMemoryBudget(requestBound(spec, maxRequests, horizon, o.concurrency > 0), instances);
  let wl: ReturnType<typeof createWorkload>;
  try {
    // An explicit --timeout replaces every client's `timeout` key (0 = no deadline).
    const timeout = explicit.has("timeout") ? { timeoutUs: o.timeout > 0 ? o.timeout * 1e6 : 0 } : {};
    wl = createWorkload(spec, { horizon, maxRequests, seed: BigInt.asIntN(64, spec.seed), logger: log, ...timeout });
  } catch (e) {
    return prefixed("Failed to generate workload: ", e);
  }
  const out: ResolvedWorkload = {
    source: wl.source,
    horizon,
    requestCap: maxRequests > 0 ? maxRequests : 0,
    sessions: wl.sessions,
  };
  if (spec.goodput_slo_targets !== undefined) out.sloTargets = { spec: spec.goodput_slo_targets };
  const keyed = [...spec.clients, ...spec.cohorts].some((c) => (c.timeout ?? 0) > 0);
  if (explicit.has("timeout") ? o.timeout > 0 : keyed) out.deadlines = true;
  const refs = specAdapterRefs(spec);
  if (refs.length > 0) out.adapterRefs = refs;
  return out;
}

interface SelectedSpec {
  spec: WorkloadSpec;
  maxRequests: number;
  horizon: number;
}

/** The trace's requests in arrival order, capped by an explicit --num-requests and the horizon. */
function replayTrace(o: Readonly<RunOptions>, explicit: ReadonlySet<string>, seed: bigint): ResolvedWorkload {
  const horizon = o.horizon;
  const dataPath = o.replayTraceData !== "" ? o.replayTraceData : o.replayTrace.replace(/\.ya?ml$/i, "") + ".csv";
  if (!fs.existsSync(dataPath)) {
    throw new UserError(
      `--replay-trace-data: trace data file ${dataPath} not found (give it with --replay-trace-data)`,
    );
  }
  const trace = (() => {
    try {
      return loadTraceV2(o.replayTrace, dataPath);
    } catch (e) {
      return prefixed("--replay-trace: Failed to load trace: ", e);
    }
  })();
  const src = traceReplaySource(trace, seed);
  const all: WorkloadRequest[] = [];
  for (let r = src.next(); r !== null; r = src.next()) all.push(r);
  // Trace rows need not be sorted; the cluster consumes arrivals in time order (stable).
  all.sort((a, b) => a.arrival - b.arrival);
  const capped = explicit.has("numRequests") && o.numRequests > 0 ? all.slice(0, o.numRequests) : all;
  const kept = capped.filter((r) => r.arrival < horizon);
  setDeadlines(kept, o.timeout);
  const out: ResolvedWorkload = { source: new ArrayRequestSource(kept), horizon, requestCap: kept.length };
  if (o.timeout > 0) out.deadlines = true;
  const refs = requestAdapterRefs(kept);
  if (refs.length > 0) out.adapterRefs = refs;
  if (trace.header.goodput_slo_targets !== undefined) out.sloTargets = { header: trace.header.goodput_slo_targets };
  return out;
}

/** The spec of the selected source: a spec file or object, a CSV trace, distribution flags or a preset. */
function selectSpec(o: Readonly<RunOptions>, explicit: ReadonlySet<string>, seed: bigint, log: Logger): SelectedSpec {
  if (o.workloadSpecObject !== undefined || o.workloadSpec !== "") return specFromFile(o, explicit, seed, log);
  const horizon = o.horizon;
  if (o.workload === "traces") {
    let spec: WorkloadSpec;
    try {
      spec = specFromCsvTraceMode(o.workloadTracesFilepath, horizon === Infinity ? 0 : horizon, seed, log);
    } catch (e) {
      if (o.workloadTracesFilepath === "") throw e;
      return prefixed("Failed to load CSV trace: ", e);
    }
    return { spec, maxRequests: explicit.has("numRequests") ? o.numRequests : spec.num_requests, horizon };
  }
  if (o.workload === "distribution" || o.workload === "") {
    checkRateFlag(o.rate);
    checkLengthMinimum("--prompt-tokens-min", o.promptTokensMin, o.promptTokensStdev, o.promptTokens);
    checkLengthMinimum("--output-tokens-min", o.outputTokensMin, o.outputTokensStdev, o.outputTokens);
    const spec = specFromDistribution({
      rate: o.rate,
      numRequests: o.numRequests,
      prefixTokens: o.prefixTokens,
      promptTokens: o.promptTokens,
      promptTokensStdev: o.promptTokensStdev,
      promptTokensMin: o.promptTokensMin,
      promptTokensMax: o.promptTokensMax,
      outputTokens: o.outputTokens,
      outputTokensStdev: o.outputTokensStdev,
      outputTokensMin: o.outputTokensMin,
      outputTokensMax: o.outputTokensMax,
      seed,
    });
    if (o.concurrency > 0) return concurrencySpec(spec, o, explicit);
    return { spec, maxRequests: o.numRequests, horizon };
  }
  if (!Number.isFinite(o.rate) || o.rate <= 0) throw new UserError(`--rate must be a finite value > 0, got ${o.rate}`);
  const presets = readPresetsFromDefaults(o.defaultsFilepath);
  return {
    spec: specFromPreset(o.workload, presets, o.rate, o.numRequests, seed),
    maxRequests: o.numRequests,
    horizon,
  };
}

/** A workload spec (file or object); explicit --seed, --rate, --horizon and --num-requests win over its values. */
function specFromFile(o: Readonly<RunOptions>, explicit: ReadonlySet<string>, seed: bigint, log: Logger): SelectedSpec {
  let spec: WorkloadSpec;
  try {
    spec =
      o.workloadSpecObject !== undefined
        ? decodeWorkloadSpec(o.workloadSpecObject, "parsing workload spec")
        : loadWorkloadSpec(o.workloadSpec, { logger: log });
  } catch (e) {
    return prefixed("Failed to load workload spec: ", e);
  }
  applySpecFlags(spec, {
    ...(explicit.has("rate") ? { rate: o.rate } : {}),
    ...(explicit.has("numRequests") ? { numRequests: o.numRequests } : {}),
    ...(explicit.has("horizon") ? { horizon: o.horizon } : {}),
  });
  if (explicit.has("seed")) {
    log.info(`--seed ${seed} overrides the workload spec's seed ${spec.seed}`);
    spec.seed = seed;
  } else {
    log.info(`using the workload spec's seed ${spec.seed}`);
  }
  const horizon = spec.horizon > 0 && !explicit.has("horizon") ? spec.horizon : o.horizon;
  return { spec, maxRequests: explicit.has("numRequests") ? o.numRequests : spec.num_requests, horizon };
}

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

/** docs/behavior.md "Closed-loop load": the rules of --concurrency and --think-time-ms, in BLIS's order. */
function checkConcurrencyFlags(o: Readonly<RunOptions>, explicit: ReadonlySet<string>): void {
  if (o.concurrency < 0) throw new UserError(`--concurrency must be >= 0, got ${o.concurrency}`);
  if (o.thinkTimeMs < 0) throw new UserError(`--think-time-ms must be >= 0, got ${o.thinkTimeMs}`);
  checkTimeoutFlag(o.timeout);
  if (o.concurrency === 0) return;
  if (explicit.has("rate"))
    throw new UserError("--concurrency and --rate are mutually exclusive; use one or the other");
  if (o.workloadSpecObject !== undefined || o.workloadSpec !== "") {
    throw new UserError(
      "--concurrency cannot be used with --workload-spec; define concurrency in the spec file using clients[].concurrency instead",
    );
  }
  if (o.replayTrace !== "")
    throw new UserError("--concurrency cannot be used with --replay-trace; the trace fixes every arrival");
  if (o.workload !== "distribution" && o.workload !== "") {
    throw new UserError(
      `--concurrency cannot be used with --workload ${o.workload}; virtual users take the distribution-mode length flags`,
    );
  }
}

/** `--timeout` (docs/behavior.md "Client timeouts"): seconds, negative = no deadlines, 0 is an error. */
export function checkTimeoutFlag(timeout: number): void {
  if (timeout === 0) throw new UserError("--timeout must be positive (seconds) or negative to disable; got 0");
}

/** Deadlines of replayed trace requests: `seconds` after each arrival (none when negative). */
export function setDeadlines(requests: readonly WorkloadRequest[], seconds: number): void {
  if (!(seconds > 0)) return;
  for (const r of requests) r.deadline = r.arrival + seconds * 1e6;
}

/**
 * Distribution mode with virtual users: the one client sends nothing on its own (rate 0); its
 * users each keep one request outstanding. Only an explicit --num-requests caps the run.
 */
function concurrencySpec(spec: WorkloadSpec, o: Readonly<RunOptions>, explicit: ReadonlySet<string>): SelectedSpec {
  const client = spec.clients[0]!;
  client.concurrency = o.concurrency;
  client.think_time_us = o.thinkTimeMs * 1000;
  client.rate_fraction = 0;
  spec.aggregate_rate = 0;
  const maxRequests = explicit.has("numRequests") ? o.numRequests : 0;
  spec.num_requests = maxRequests;
  return { spec, maxRequests, horizon: o.horizon };
}
