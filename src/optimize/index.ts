// Public API of `blis optimize`: Bayesian optimization of policy parameters over the sweep engine.

export { SpaceError } from "./errors.js";
export {
  DEFAULT_BUDGET,
  DEFAULT_SEARCH_SEED,
  defaultInitial,
  loadSpace,
  parseSpace,
  type OptimizeSpace,
  type ParseSpaceOptions,
} from "./space.js";
export type { Category, Parameter, ParamTarget, ParamType, ParamValue } from "./parameters.js";
export { parseBound, type Bound, type Constraint, type Objective } from "./objective.js";
export {
  SIGNIFICANT_DIGITS,
  decodePoint,
  decodeUnit,
  encodePoint,
  featureCount,
  featureGroups,
  latinHypercube,
  perturbPoint,
  pointKey,
  randomPoint,
  type Point,
} from "./design.js";
export {
  DEFAULT_LENGTH_GRID,
  DEFAULT_NOISE_GRID,
  GaussianProcess,
  correlation,
  fitSurrogate,
  kernel,
  type GpHyper,
  type KernelKind,
  type Surrogate,
  type SurrogateOptions,
} from "./gp.js";
export {
  expectedImprovement,
  normCdf,
  normPdf,
  proposeBatch,
  type Proposal,
  type ProposeOptions,
} from "./acquisition.js";
export { assess, bestOf, inputFor, type ConstraintResult, type Evaluated } from "./evaluate.js";
export { optimize, type OptimizeOptions, type OptimizeResult } from "./search.js";
export { bundleFor } from "./bundle.js";
export { commandLine } from "./commandLine.js";
export { convergenceRows } from "./tables.js";
export {
  renderConvergence,
  renderEvaluationsCsv,
  renderEvaluationsJson,
  renderSummary,
  summarizeBest,
  type BestSummary,
} from "./output.js";
export type { EvalRecord, SeedRun } from "./store.js";
