// Public API of the workload layer.

export type { RequestSource, WorkloadRequest, SloClass } from "../core/workloadRequest.js";
export { ArrayRequestSource, makeRequest } from "../core/workloadRequest.js";

export * from "./spec/types.js";
export type { PositionMap } from "./spec/decode.js";
export type { Pos } from "./spec/ynode.js";
export {
  copySpecPositions,
  decodeWorkloadSpec,
  loadWorkloadSpec,
  parseWorkloadSpec,
  specPositions,
  type LoadOptions,
} from "./spec/load.js";
export { upgradeV1ToV2 } from "./spec/upgrade.js";
export {
  checkSpecBounds,
  findValidationFailure,
  validateWorkloadSpec,
  type ValidationFailure,
} from "./spec/validate.js";
export { cohortWindows, diurnalWindows, drainWindows, expandCohorts, spikeWindows } from "./spec/cohorts.js";
export { expandInferencePerf, findInferencePerfFailure, stageWindows } from "./spec/inferencePerf.js";
export { loadServeGenClients, parsePdfDict } from "./spec/servegen.js";

export {
  buildArrivalSampler,
  sampleGamma,
  weibullCv,
  weibullShapeFromCv,
  type ArrivalSampler,
} from "./samplers/arrival.js";
export { buildLengthSampler, ReasonRatioSampler, SamplerBuildError, type LengthSampler } from "./samplers/length.js";
export { gammaFn, lnGamma } from "./samplers/gammaFn.js";

export {
  BOUND_ERROR,
  checkGenerationBound,
  createRequestSource,
  createWorkload,
  generateAll,
  type RequestSourceOptions,
  type Workload,
} from "./gen/generator.js";
export { SessionManager, type EndedRequest } from "./sessions/manager.js";
export type { SessionPlan, SessionTag } from "./sessions/plan.js";
export { planReplaySessions, type ReplayThink } from "./sessions/replayPlan.js";
export { parseThinkDist } from "./sessions/thinkTime.js";
export { generationEnd } from "./gen/bound.js";
export { TOKEN_VOCABULARY } from "./gen/tokens.js";

export {
  checkNumRequestsFlag,
  checkRateFlag,
  DEFAULT_DISTRIBUTION_FLAGS,
  specFromDistribution,
  type DistributionFlags,
} from "./sources/distribution.js";
export { applySpecFlags, type SpecFlags } from "./sources/specFlags.js";
export {
  presetToSpec,
  readPresetsFromDefaults,
  specFromPreset,
  type PresetEntry,
  type PresetLike,
} from "./sources/preset.js";

export { convertCsvTraceFile, specFromCsvTraceMode, summarizeCsvTrace } from "./trace/csvTrace.js";
export {
  exportTraceV2,
  formatTraceV2Data,
  formatTraceV2Header,
  loadTraceV2,
  parseTraceV2Data,
  parseTraceV2Header,
  TRACE_V2_COLUMNS,
  TRACE_V3_COLUMNS,
  OPTIONAL_COLUMNS,
  emptyTraceRecord,
  newTraceHeader,
  type OptionalColumn,
  type TraceHeader,
  type TraceLayout,
  type TraceRecord,
  type TraceV2,
} from "./trace/traceV2.js";
export { replayArrival, traceReplaySource } from "./trace/replay.js";

export {
  assertGeneratedSpecValid,
  convertCsvTrace,
  convertInferencePerf,
  convertMooncake,
  convertPreset,
  convertScenario,
  convertServeGen,
} from "./convert.js";
export { loadMooncakeTrace, mooncakeWorkload } from "./mooncake/workload.js";
export { DEFAULT_TRACE_BLOCK_SIZE, type MooncakeTrace } from "./mooncake/trace.js";
export { composeFiles, composeSpecs, type ComposeOptions } from "./compose.js";
export { isScenarioName, scenarioSpec, SCENARIO_NAMES, type ScenarioName } from "./scenarios.js";
export { serializeWorkloadSpec } from "./serialize.js";
