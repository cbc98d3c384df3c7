// Sweep plans (examples/experiments/README.md "Plan keys"): the public entry point. The parts live in their own
// modules:
// planTypes (shapes and defaults), planParse (plan files), planCells (plans built in code),
// planSelectors (configuration references), planIdentity (directories and hashes), specPath.

export {
  DEFAULT_SEEDS,
  DEFAULT_TIMEOUT_S,
  VARIANT_AXIS,
  type MonotonicDef,
  type RatioDef,
  type Selector,
  type SweepAxis,
  type SweepChecks,
  type SweepConfig,
  type SweepPlan,
} from "./planTypes.js";
export { parseSpecPath, setSpecPath, type SpecPath } from "./specPath.js";
export { loadPlan, parsePlan, type LoadPlanOptions, type ParsePlanOptions } from "./planParse.js";
export { matching, pairs, parseSelector, resolveRelative, type SelectorContext } from "./planSelectors.js";
export { planHashes } from "./planIdentity.js";
export { planFromCells, type CellSpec, type CellsPlanOptions } from "./planCells.js";
