// Public API of `blis plan`: the cheapest deployment meeting latency SLOs (docs/plan.md).

export { runPlan, type PlanResult } from "./plan.js";
export { PLAN_DEFAULTS, defaultRequests, type PlanQuestion, type PlanRuntime } from "./question.js";
export { planJson, type PlanJson } from "./output.js";
export { renderTable, summaryLine } from "./render.js";
export { loadPriceTable, tableLabel, BUNDLED_PRICES, type PriceTable } from "./prices.js";
export { parseSlos, parseSeedRule, type Slo, type SeedRule } from "./slo.js";
export { enumerateShapes, hardwareGpus, parsePdList, type PdLayout, type Shape } from "./shapes.js";
export { fleetCapacity, parseFleet, type FleetResult } from "./fleet.js";
export { loadSchedule, planSchedule, type Schedule, type SchedulePlan } from "./schedule.js";
export { kubernetesManifest, vllmCommands, type DeployInput } from "./deploy.js";
export { planReportHtml } from "./report.js";
