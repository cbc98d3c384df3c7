// `blis convert …` (docs/behavior.md "Traces, convert and compose") as pure functions returning a
// validated spec.

import { UserError } from "../util/errors.js";
import type { Logger } from "../util/log.js";
import { expandInferencePerf, expandInferencePerfScheduled, findInferencePerfFailure } from "./spec/inferencePerf.js";
import { loadWorkloadSpec } from "./spec/load.js";
import { loadServeGenClients, ServeGenError } from "./spec/servegen.js";
import { makeSpec, type WorkloadSpec } from "./spec/types.js";
import { findValidationFailure } from "./spec/validate.js";
import { checkNumRequestsFlag, checkRateFlag, DEFAULT_DISTRIBUTION_FLAGS } from "./sources/distribution.js";
import { presetToSpec, type PresetLike } from "./sources/preset.js";
import { convertCsvTraceFile } from "./trace/csvTrace.js";
import { scenarioSpec } from "./scenarios.js";
import { loadMooncakeTrace } from "./mooncake/workload.js";

/** Every convert/compose output is validated before printing. */
export function assertGeneratedSpecValid(spec: WorkloadSpec): void {
  const f = findValidationFailure(spec);
  if (f !== null) throw new UserError(`generated spec is invalid: ${f.message}`);
}

export function convertPreset(
  name: string,
  presets: Readonly<Record<string, PresetLike>>,
  rate = 1.0,
  numRequests = 100,
  seed: bigint = DEFAULT_DISTRIBUTION_FLAGS.seed,
): WorkloadSpec {
  const spec = presetToSpec(name, presets, rate, numRequests, seed);
  assertGeneratedSpecValid(spec);
  return spec;
}

export function convertCsvTrace(file: string, horizon = 0): WorkloadSpec {
  if (!(horizon >= 0)) throw new UserError(`--horizon must be >= 0 (0 = no truncation), got ${horizon}`);
  const spec = convertCsvTraceFile(file, horizon);
  assertGeneratedSpecValid(spec);
  return spec;
}

/** ServeGen directory → spec with the placeholder aggregate rate 1.0 (docs/behavior.md#w17). */
export function convertServeGen(path: string, logger?: Logger): WorkloadSpec {
  let clients;
  try {
    clients = loadServeGenClients(path, 0, 0, logger);
  } catch (err) {
    if (err instanceof ServeGenError) throw new UserError(`loading servegen data: ${err.message}`);
    throw err;
  }
  const spec = makeSpec({ version: "2", seed: 0n, aggregate_rate: 1.0, clients });
  assertGeneratedSpecValid(spec);
  return spec;
}

/**
 * inference-perf file → spec with version, seed, category, the summed stage rates and the
 * per-stage clients only; with `rateSchedule`, P·U clients whose rate schedules follow the stages
 * (no aggregate_rate: their rates are absolute).
 */
export function convertInferencePerf(specPath: string, logger?: Logger, rateSchedule = false): WorkloadSpec {
  const file = loadWorkloadSpec(specPath, logger === undefined ? {} : { logger });
  if (file.inference_perf === undefined)
    throw new UserError(`file ${specPath} does not contain an inference_perf section`);
  const failure = findInferencePerfFailure(file.inference_perf);
  if (failure !== null)
    throw new UserError(`expanding inference-perf spec: validating inference-perf spec: ${failure.message}`);
  const expansion = rateSchedule
    ? { aggregateRate: 0, ...expandInferencePerfScheduled(file.inference_perf) }
    : expandInferencePerf(file.inference_perf);
  const spec = makeSpec({
    version: "2",
    seed: file.seed,
    category: file.category === "" ? expansion.category : file.category,
    aggregate_rate: expansion.aggregateRate,
    clients: expansion.clients,
  });
  assertGeneratedSpecValid(spec);
  return spec;
}

/**
 * Extension: one of the built-in scenarios (./scenarios.ts) as a spec, with `numRequests` as its
 * cap when given (without one, running it needs --num-requests or --horizon).
 */
export function convertScenario(
  name: string,
  rate = 1.0,
  seed: bigint = DEFAULT_DISTRIBUTION_FLAGS.seed,
  numRequests?: number,
): WorkloadSpec {
  checkRateFlag(rate);
  if (numRequests !== undefined) checkNumRequestsFlag(numRequests);
  const spec = scenarioSpec(name, seed, rate);
  if (numRequests !== undefined) spec.num_requests = numRequests;
  assertGeneratedSpecValid(spec);
  return spec;
}

export interface MooncakeConvertOptions {
  /** Tokens per hash id (> 0). */
  blockSize: number;
  /** Factor on the gaps between timestamps (> 0). */
  timeScale: number;
  /** Requests kept in flight, timestamps ignored (0 = open loop). */
  concurrency: number;
  seed: bigint;
}

/**
 * A Mooncake-style JSONL trace → the spec that replays it (docs/traces.md). The trace is read and
 * checked now, so a malformed line is reported here rather than at run time.
 */
export function convertMooncake(file: string, o: MooncakeConvertOptions): WorkloadSpec {
  if (!(Number.isInteger(o.blockSize) && o.blockSize > 0))
    throw new UserError(`--trace-block-size must be a positive integer, got ${o.blockSize}`);
  if (!(o.timeScale > 0 && Number.isFinite(o.timeScale)))
    throw new UserError(`--time-scale must be a finite number > 0, got ${o.timeScale}`);
  if (!(Number.isInteger(o.concurrency) && o.concurrency >= 0))
    throw new UserError(`--concurrency must be a non-negative integer, got ${o.concurrency}`);
  loadMooncakeTrace(file, o.blockSize);
  const spec = makeSpec({
    version: "2",
    seed: o.seed,
    mooncake_trace: { path: file, block_size: o.blockSize, time_scale: o.timeScale, concurrency: o.concurrency },
  });
  assertGeneratedSpecValid(spec);
  return spec;
}
