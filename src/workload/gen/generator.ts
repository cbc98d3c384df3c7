// The single workload generator (docs/behavior.md "Workload generation"): expansion, upgrade,
// validation, stream derivation and per-client generators, merged lazily into a RequestSource.

import { deriveStreamSeed, Rng } from "../../engine/rng.js";
import { UserError } from "../../util/errors.js";
import type { Logger } from "../../util/log.js";
import type { RequestSource, WorkloadRequest } from "../../core/workloadRequest.js";
import { buildArrivalSampler, type ArrivalSampler } from "../samplers/arrival.js";
import { buildLengthSampler, ReasonRatioSampler, SamplerBuildError, type LengthSampler } from "../samplers/length.js";
import { decodeWorkloadSpec, specPositions } from "../spec/load.js";
import type { ClientSpec, DistSpec, WindowSpec, WorkloadSpec } from "../spec/types.js";
import { checkSpecBounds, validateWorkloadSpec } from "../spec/validate.js";
import { generationEnd } from "./bound.js";
import { EmptySource, MergedSource } from "./merge.js";
import {
  ClientStream,
  ClientLimitsStream,
  OrdinaryStream,
  SessionStream,
  type Modality,
  type MultimodalSamplers,
  type StreamCommon,
} from "./streams.js";
import { EMPTY_TOKENS, fillTokens, MAX_SAMPLED_LENGTH } from "./tokens.js";
import { ActiveWindows, WindowSet } from "./windows.js";
import { RateCurve, ScheduledArrival } from "./rateSchedule.js";
import { mooncakeWorkload } from "../mooncake/workload.js";
import { expandedClients, prepareSpec } from "./prepareSpec.js";
import { ClosedLoopStream, planClosedLoop, type LoopClient, type SessionPlan } from "../sessions/plan.js";

export interface RequestSourceOptions {
  /** Horizon in ticks; Infinity (or ≥ 2^63−1) = unbounded. Default: spec horizon if > 0, else unbounded. */
  horizon?: number;
  /** Request cap N; 0 = none. Default: spec num_requests. */
  maxRequests?: number;
  /** Workload seed. Default: spec seed. */
  seed?: bigint;
  logger?: Logger;
  /** Replaces every client's `timeout` key, µs (0 = no deadlines): the run's --timeout. */
  timeoutUs?: number;
}

/** The CLI's unbounded horizon default, 2^63−1, as a double. */
const INT64_MAX_AS_DOUBLE = 2 ** 63;
const DEFAULT_PREFIX_LENGTH = 50;
/** Guard against sessions that could never be generated (not in the reference). */
const MAX_ROUNDS = 1_000_000;

/** BLIS's message, then the ways to fix it. */
export const BOUND_ERROR =
  "Workload requires either num_requests or --horizon to bound generation; pass --num-requests N or --horizon T, or set num_requests in the spec";

/**
 * A finite cap or a finite horizon is required (docs/behavior.md "Sources and precedence"), unless
 * the spec (when given) bounds itself with finite lifecycle windows on every client (extension; see
 * generationEnd).
 */
export function checkGenerationBound(maxRequests: number, horizon: number, spec?: WorkloadSpec): void {
  if (maxRequests > 0 || normalizeHorizon(horizon) !== Infinity) return;
  // A trace ends with its last line.
  if (spec !== undefined && (spec.mooncake_trace !== undefined || generationEnd(spec) < Infinity)) return;
  throw new UserError(BOUND_ERROR);
}

function normalizeHorizon(h: number): number {
  return h >= INT64_MAX_AS_DOUBLE ? Infinity : h;
}

/**
 * Creates a lazy request source. Validation, expansion and sampler construction happen here
 * (UserError on failure; validation messages are prefixed `invalid workload spec: `).
 * Request token arrays may be views into a shared per-session buffer: treat them as read-only.
 */
export function createRequestSource(spec: unknown, opts: RequestSourceOptions = {}): RequestSource {
  return createWorkload(spec, opts).source;
}

/** The requests of a workload, and its closed-loop sessions (null when it has none). */
export interface Workload {
  source: RequestSource;
  sessions: SessionPlan | null;
}

/**
 * createRequestSource with closed-loop load (docs/behavior.md "Closed-loop load"): the source
 * holds round 0 of closed-loop sessions and one seed per virtual user; the plan makes the rest.
 */
export function createWorkload(spec: unknown, opts: RequestSourceOptions = {}): Workload {
  const positions = spec !== null && typeof spec === "object" ? specPositions(spec) : undefined;
  const s = decodeWorkloadSpec(spec);
  const { horizon, maxRequests, seed } = runLimits(s, opts);
  const logger = opts.logger;

  checkSpecBounds(s, { numRequests: opts.maxRequests !== undefined, horizon: opts.horizon !== undefined }, positions);
  if (Number.isNaN(horizon)) throw new UserError("horizon must be a number, got NaN");
  if (!Number.isInteger(maxRequests)) throw new UserError(`maxRequests must be an integer, got ${maxRequests}`);
  checkGenerationBound(maxRequests, horizon, s);
  if (horizon <= 0) return { source: new EmptySource(), sessions: null };
  if (maxRequests < 0) throw new UserError(`maxRequests must be non-negative, got ${maxRequests}`);

  if (s.mooncake_trace !== undefined) {
    validateWorkloadSpec(s, positions);
    return mooncakeWorkload(s.mooncake_trace, {
      horizon,
      maxRequests,
      seed: BigInt.asIntN(64, seed),
      timeoutUs: opts.timeoutUs ?? 0,
    });
  }
  prepareSpec(s, positions, logger);
  const clients = expandedClients(s, opts.timeoutUs);

  const w = new Rng(deriveStreamSeed(BigInt.asIntN(64, seed), "workload-gen"));
  const prefixes = drawPrefixGroups(clients, w);
  let fractionSum = 0;
  for (const c of clients) fractionSum += c.rate_fraction;
  const cap = maxRequests > 0 ? 2 * maxRequests : Infinity;

  // Cohort members share distribution, arrival and window objects: build each once.
  const shared: SharedBuilds = { lengths: new Map(), arrivals: new Map(), windows: new Map() };
  const streams: ClientStream[] = [];
  const marks = new Map<WorkloadRequest, LoopClient>();
  const users: LoopClient[] = [];
  for (const c of clients) {
    const rng = new Rng(w.int63());
    if ((c.concurrency ?? 0) > 0) {
      users.push(loopClient(c, prefixes, shared));
      continue;
    }
    const arrival = clientArrival(c, `client "${c.id}"`, s.aggregate_rate, fractionSum, shared, logger);
    streams.push(clientStream(c, { rng, arrival, cap, horizon }, prefixes, shared, marks));
  }
  const base = new MergedSource(streams, maxRequests > 0 ? maxRequests : Infinity);
  if (users.length === 0 && !streams.some((st) => st instanceof ClosedLoopStream)) {
    return { source: base, sessions: null };
  }
  const { source, plan } = planClosedLoop({
    base,
    marks,
    users,
    seed,
    cap: maxRequests > 0 ? maxRequests : 0,
    horizon,
  });
  return { source, sessions: plan };
}

/** Horizon, request cap and seed: the options' when given, else the spec's (no horizon: unbounded). */
function runLimits(
  s: WorkloadSpec,
  opts: RequestSourceOptions,
): { horizon: number; maxRequests: number; seed: bigint } {
  return {
    horizon: normalizeHorizon(opts.horizon ?? (s.horizon > 0 ? s.horizon : Infinity)),
    maxRequests: opts.maxRequests ?? s.num_requests,
    seed: opts.seed ?? s.seed,
  };
}

/**
 * The request stream of an open-loop client: wrapped to apply its timeout and SLO target when it
 * has them, and to run its multi-turn sessions closed-loop when it asks for that.
 */
function clientStream(
  c: ClientSpec,
  run: Pick<StreamCommon, "rng" | "arrival" | "cap" | "horizon">,
  prefixes: Map<string, Int32Array>,
  shared: SharedBuilds,
  marks: Map<WorkloadRequest, LoopClient>,
): ClientStream {
  const common: StreamCommon = {
    label: `client "${c.id}"`,
    rng: run.rng,
    arrival: run.arrival,
    cap: run.cap,
    horizon: run.horizon,
    tenantId: c.tenant_id,
    sloClass: c.slo_class,
    model: c.model,
    adapter: c.adapter ?? "",
  };
  let stream = buildStream(c, common, prefixes, shared);
  if ((c.timeout ?? 0) > 0 || (c.slo_target_us ?? 0) > 0)
    stream = new ClientLimitsStream(stream, c.timeout ?? 0, c.slo_target_us ?? 0);
  const closed = c.closed_loop === true && c.reasoning?.multi_turn !== undefined;
  return closed ? new ClosedLoopStream(stream, loopClient(c, prefixes, shared), marks) : stream;
}

/** The client's arrival sampler: shared by equal constant-rate clients, per client with a rate schedule. */
function clientArrival(
  c: ClientSpec,
  label: string,
  aggregateRate: number,
  fractionSum: number,
  shared: SharedBuilds,
  logger: Logger | undefined,
): ArrivalSampler {
  if (c.rate_schedule !== undefined) {
    const curve = new RateCurve(c.rate_schedule, c.rate_interpolation === "linear");
    return new ScheduledArrival(curve, buildArrivalSampler(c.arrival.process, c.arrival.cv, 1e-6, label, logger));
  }
  let lambda = (aggregateRate * (c.rate_fraction / fractionSum)) / 1e6;
  if (!(lambda >= 1e-15)) lambda = 1e-15;
  const arrivalKey = `${c.arrival.process}|${c.arrival.cv}|${lambda}`;
  let arrival = shared.arrivals.get(arrivalKey);
  if (arrival === undefined) {
    arrival = buildArrivalSampler(c.arrival.process, c.arrival.cv, lambda, label, logger);
    shared.arrivals.set(arrivalKey, arrival);
  }
  return arrival;
}

function loopClient(c: ClientSpec, prefixes: Map<string, Int32Array>, shared: SharedBuilds): LoopClient {
  const label = `client "${c.id}"`;
  return {
    client: c,
    label,
    input: sampler(c.input_distribution, "input distribution", label, true, shared),
    output: sampler(c.output_distribution, "output distribution", label, true, shared),
    prefix: groupPrefix(c, prefixes),
    tenantId: c.tenant_id,
    sloClass: c.slo_class,
    model: c.model,
    adapter: c.adapter ?? "",
  };
}

/** Eager convenience over createRequestSource (tests, small workloads). */
export function generateAll(spec: unknown, opts: RequestSourceOptions = {}): WorkloadRequest[] {
  const source = createRequestSource(spec, opts);
  const out: WorkloadRequest[] = [];
  for (let r = source.next(); r !== null; r = source.next()) out.push(r);
  return out;
}

/**
 * Prefix groups (docs/behavior.md#w4): group tokens from W in order of first appearance; the first
 * member fixes the length.
 */
function drawPrefixGroups(clients: readonly ClientSpec[], w: Rng): Map<string, Int32Array> {
  const groups = new Map<string, Int32Array>();
  for (const c of clients) {
    if (c.prefix_group === "" || groups.has(c.prefix_group)) continue;
    const len = c.prefix_length > 0 ? c.prefix_length : DEFAULT_PREFIX_LENGTH;
    if (len > MAX_SAMPLED_LENGTH) {
      throw new UserError(
        `client "${c.id}": prefix_length ${len} exceeds the supported maximum of ${MAX_SAMPLED_LENGTH}`,
      );
    }
    const tokens = new Int32Array(len);
    fillTokens(w, tokens, 0, len);
    groups.set(c.prefix_group, tokens);
  }
  return groups;
}

interface SharedBuilds {
  /** Samplers are stateless (the stream is passed in), so equal dist objects share one. */
  lengths: Map<DistSpec, LengthSampler>;
  arrivals: Map<string, ArrivalSampler>;
  windows: Map<readonly WindowSpec[], WindowSet>;
}

function sampler(d: DistSpec, what: string, label: string, isLength: boolean, shared: SharedBuilds): LengthSampler {
  let built = shared.lengths.get(d);
  if (built === undefined) {
    try {
      built = buildLengthSampler(d);
    } catch (err) {
      if (err instanceof SamplerBuildError) throw new UserError(`${label} ${what}: ${err.message}`);
      throw err;
    }
    shared.lengths.set(d, built);
  }
  if (isLength) {
    // docs/behavior.md#w3: negative lengths are an error (the reference crashes).
    if (built.lowest < 0) throw new UserError(`${label} ${what}: can produce a negative length (${built.lowest})`);
    if (built.lowest > MAX_SAMPLED_LENGTH) {
      throw new UserError(
        `${label} ${what}: length ${built.lowest} exceeds the supported maximum of ${MAX_SAMPLED_LENGTH}`,
      );
    }
  }
  return built;
}

function modality(item: DistSpec, count: DistSpec, name: string, label: string, shared: SharedBuilds): Modality | null {
  if (item.type === "" || count.type === "") return null;
  return {
    count: sampler(count, `multimodal: ${name} count distribution`, label, false, shared),
    item: sampler(item, `multimodal: ${name} distribution`, label, true, shared),
  };
}

function groupPrefix(c: ClientSpec, prefixes: Map<string, Int32Array>): Int32Array {
  return c.prefix_group === "" ? EMPTY_TOKENS : prefixes.get(c.prefix_group)!;
}

/** The client's own cursor over its (shared, built once) window set; null without lifecycle. */
function activeWindows(c: ClientSpec, shared: SharedBuilds): ActiveWindows | null {
  if (c.lifecycle === undefined) return null;
  let set = shared.windows.get(c.lifecycle.windows);
  if (set === undefined) {
    set = new WindowSet(c.lifecycle.windows);
    shared.windows.set(c.lifecycle.windows, set);
  }
  return new ActiveWindows(set);
}

function buildStream(
  c: ClientSpec,
  common: StreamCommon,
  prefixes: Map<string, Int32Array>,
  shared: SharedBuilds,
): ClientStream {
  const label = common.label;
  const input = sampler(c.input_distribution, "input distribution", label, true, shared);
  const output = sampler(c.output_distribution, "output distribution", label, true, shared);
  const multiTurn = c.reasoning?.multi_turn;
  if (multiTurn !== undefined) {
    if (multiTurn.max_rounds > MAX_ROUNDS) {
      throw new UserError(
        `${label} reasoning: max_rounds ${multiTurn.max_rounds} exceeds the supported maximum of ${MAX_ROUNDS}`,
      );
    }
    // Multi-turn clients ignore streaming and multimodal (docs/behavior.md#w5) but, as in BLIS
    // today, use their prefix group and lifecycle windows (see SessionStream).
    const rr = c.reasoning!.reason_ratio_distribution;
    const reason =
      rr.type === ""
        ? null
        : new ReasonRatioSampler(sampler(rr, "reasoning: reason ratio distribution", label, false, shared));
    return new SessionStream({
      label: common.label,
      rng: common.rng,
      arrival: common.arrival,
      cap: common.cap,
      horizon: common.horizon,
      tenantId: common.tenantId,
      sloClass: common.sloClass,
      model: common.model,
      adapter: common.adapter ?? "",
      input,
      output,
      prefix: groupPrefix(c, prefixes),
      windows: activeWindows(c, shared),
      rounds: multiTurn.max_rounds,
      thinkTime: multiTurn.think_time_us,
      accumulate: multiTurn.context_growth === "accumulate",
      reason,
    });
  }
  let multimodal: MultimodalSamplers | null = null;
  if (c.multimodal !== undefined) {
    const mm = c.multimodal;
    const text =
      mm.text_distribution.type === ""
        ? null
        : sampler(mm.text_distribution, "multimodal: text distribution", label, true, shared);
    multimodal = {
      text,
      image: modality(mm.image_distribution, mm.image_count_distribution, "image", label, shared),
      audio: modality(mm.audio_distribution, mm.audio_count_distribution, "audio", label, shared),
      video: modality(mm.video_distribution, mm.video_count_distribution, "video", label, shared),
    };
  }
  const prefix = groupPrefix(c, prefixes);
  const windows = activeWindows(c, shared);
  // Explicit fields rather than a spread: V8 clones spreads slowly, and 100,000-member cohorts
  // build this once per member.
  return new OrdinaryStream({
    label: common.label,
    rng: common.rng,
    arrival: common.arrival,
    cap: common.cap,
    horizon: common.horizon,
    tenantId: common.tenantId,
    sloClass: common.sloClass,
    model: common.model,
    adapter: common.adapter ?? "",
    input,
    output,
    prefix,
    streaming: c.streaming,
    windows,
    multimodal,
  });
}
