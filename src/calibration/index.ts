// Calibration as a library: replay a measured trace, compare it with the measurements, fit
// latency coefficients (docs/calibration.md).

export { replay, measuredLatency } from "./replay.js";
export * from "./calibrate.js";
export {
  BUNDLED_EXPERIMENTS,
  readExperimentsFile,
  experimentFromEntry,
  stageOf,
  unsupportedReason,
} from "./experiments.js";
export type { ExperimentEntry, ExperimentSource, FitExperiment } from "./experiments.js";
export { loadInputs, resolveInput, type InputContext } from "./fit/inputs.js";
export { evaluateExperiment, type ExperimentEval, type ExperimentErrors } from "./fit/evaluate.js";
export { fitCoefficients, objective, type FitOptions, type FitResult } from "./fit/fit.js";
export { fit, startCoefficients, type FitOutcome, type FitRunOptions } from "./fit/run.js";
export {
  DEFAULT_FREE,
  PARAM_NAMES,
  paramIndex,
  beta,
  DECODE_CONTEXT,
  thetaFromCoefficients,
  coefficientsFromTheta,
} from "./fit/params.js";
export { coefficientFileText } from "./fit/report.js";
export { KERNELS_LAYOUT, TRAINED_PHYSICS_LAYOUT, freeParams } from "./fit/layout.js";
export { kernelStart, kernelFileText } from "./fit/kernelsReport.js";
export { standardErrors, degeneracies } from "./fit/diagnostics.js";
