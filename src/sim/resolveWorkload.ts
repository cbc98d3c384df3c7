import type { SloTargets } from "../metrics/sloTargets.js";
import type { RunOptions } from "../config/runOptions.js";
import { UserError } from "../util/errors.js";
import type { Logger } from "../util/log.js";
import {
  ArrayRequestSource,
  checkGenerationBound,
  createWorkload,
  generationEnd,
  type RequestSource,
  type SessionPlan,
} from "../workload/index.js";
import "../workload/sources/builtins.js";
import { selectSource, workloadSources } from "../workload/sources/registry.js";
import type { RequestsOutput, SourceContext, SpecOutput } from "../workload/sources/source.js";
import { checkTimeoutFlag, prefixed } from "../workload/sources/sharedParams.js";
import type { AdapterRef } from "../lora/resolve.js";
import { requestAdapterRefs, specAdapterRefs } from "../lora/refs.js";
import { checkMemoryBudget, requestBound } from "./memoryBudget.js";
import { MAX_INSTANCES } from "./validateOptions.js";

export { checkTimeoutFlag };
export { setDeadlines } from "../workload/sources/replayTraceSource.js";

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

/**
 * Workload selection and generation for `run` (docs/behavior.md "Sources and precedence"): every
 * registered source reads its options once and checks their values, then the conflicts between
 * sources are refused, and the first source in precedence order that the options select runs.
 */
export function resolveWorkload(o: Readonly<RunOptions>, explicit: ReadonlySet<string>, log: Logger): ResolvedWorkload {
  const context: SourceContext = {
    explicit,
    log,
    seed: BigInt.asIntN(64, BigInt(o.seed)),
    horizon: o.horizon,
    defaultsFilepath: o.defaultsFilepath,
  };
  const sources = workloadSources.bind(o);
  for (const s of sources) s.validate();
  checkTimeoutFlag(o.timeout);
  for (const s of sources) s.conflicts(context);
  const output = selectSource(sources).resolve(context);
  return output.kind === "requests" ? fromRequests(output) : fromSpec(output, o, explicit, log);
}

/** Requests given one by one: replayed as they are. */
function fromRequests(w: RequestsOutput): ResolvedWorkload {
  const out: ResolvedWorkload = {
    source: new ArrayRequestSource(w.requests),
    horizon: w.horizon,
    requestCap: w.requests.length,
  };
  if (w.deadlines) out.deadlines = true;
  const refs = requestAdapterRefs(w.requests);
  if (refs.length > 0) out.adapterRefs = refs;
  if (w.sloTargets !== undefined) out.sloTargets = { header: w.sloTargets };
  return out;
}

/** A spec: checked against its bounds and the memory budget, then generated. */
function fromSpec(
  w: SpecOutput,
  o: Readonly<RunOptions>,
  explicit: ReadonlySet<string>,
  log: Logger,
): ResolvedWorkload {
  const { spec, maxRequests, horizon } = w;
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
  checkMemoryBudget(requestBound(spec, maxRequests, horizon, w.closedLoop), instances);
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
