// The gateway feature's settings: the gateway queue, tenant budgets and goodput targets of a run,
// validated before it starts (docs/gateway.md "Flags and bundle keys").
import { UserError } from "../../util/errors.js";
import type { Logger } from "../../util/log.js";
import { createDetector, validateDetector, type DetectorParams } from "../../gateway/detectors.js";
import { priorityMap } from "../../gateway/priorities.js";
import type { GatewaySettings } from "../../gateway/gateway.js";
import type { GatewayParams } from "../../gateway/params.js";
import { mergeSloTargets, parseSloFlag, type SloTargets } from "../../metrics/sloTargets.js";

/** Goodput targets the workload spec or the trace header sets (docs/gateway.md "Goodput"). */
export interface WorkloadSloTargets {
  spec?: Record<string, SloTargets>;
  header?: Record<string, SloTargets>;
}

/** What runCluster builds the control plane from; absent from a run that uses none of it. */
export interface GatewayPlan {
  /** The flow-control queue; null without --flow-control. */
  settings: GatewaySettings | null;
  /** Tenant → budget fraction; null without `tenant_budgets`. */
  budgets: Map<string, number> | null;
  /** Goodput targets by class, ms; null when none is configured. */
  targets: Record<string, SloTargets> | null;
  /** `admission.slo_priorities` overrides. */
  priorities: Readonly<Record<string, number>>;
}

const DISPATCH_ORDERS = ["fifo", "priority", "slo-deadline"];
const FAIRNESS = ["global-strict", "round-robin"];
const GATED_POLICIES = new Set(["tier-shed", "gaie-legacy"]);

/** The gateway feature's settings: the plan and the cluster's running slots (tenant budgets share them). */
export interface GatewayRun {
  readonly plan: GatewayPlan;
  /** Instances × --max-num-seqs. */
  readonly runningSlots: number;
}

/** The validated plan, or undefined when the run uses no control-plane feature (its output stays as before). */
export function gatewayPlan(
  o: Readonly<GatewayParams>,
  log: Logger,
  workloadTargets: WorkloadSloTargets = {},
  admissionPolicy = "",
): GatewayPlan | undefined {
  checkAlways(o, log);
  const priorities = checkPriorities(o.sloPriorities);
  const budgets = checkBudgets(o.tenantBudgets);
  const targets = mergeSloTargets(
    {
      ttft: parseSloFlag("--slo-ttft", o.sloTtft),
      itl: parseSloFlag("--slo-itl", o.sloItl),
      e2e: parseSloFlag("--slo-e2e", o.sloE2e),
    },
    workloadTargets.header,
    workloadTargets.spec,
  );
  const settings = o.flowControl ? flowSettings(o, log, priorities) : null;
  if (settings === null && budgets === null && targets === undefined && !GATED_POLICIES.has(admissionPolicy))
    return undefined;
  return { settings, budgets, targets: targets ?? null, priorities: o.sloPriorities };
}

/** Checks made whether or not flow control is on: a bad value is a mistake even where it has no effect. */
function checkAlways(o: Readonly<GatewayParams>, log: Logger): void {
  if (o.requestTtl < 0) throw new UserError(`--request-ttl must be >= 0, got ${o.requestTtl}`);
  if (o.dispatchTickInterval < 0)
    throw new UserError(`--dispatch-tick-interval must be >= 0, got ${o.dispatchTickInterval}`);
  validateDetector(o.saturationDetector, detectorParams(o));
  if (!DISPATCH_ORDERS.includes(o.dispatchOrder)) {
    throw new UserError(`--dispatch-order must be 'fifo', 'priority', or 'slo-deadline', got "${o.dispatchOrder}"`);
  }
  if (!FAIRNESS.includes(o.fairnessPolicy)) {
    throw new UserError(`--fairness-policy must be 'global-strict' or 'round-robin', got "${o.fairnessPolicy}"`);
  }
  if (o.maxGatewayQueueDepth < 0)
    throw new UserError(`--max-gateway-queue-depth must be >= 0, got ${o.maxGatewayQueueDepth}`);
  if (o.perBandCapacity < 0) throw new UserError(`--per-band-capacity must be >= 0, got ${o.perBandCapacity}`);
  const tau = o.usageLimitThreshold;
  if (!(Number.isFinite(tau) && tau > 0 && tau <= 1))
    throw new UserError(`--usage-limit-threshold must be in (0, 1], got ${tau}`);
  parseSloTargetsFlag(o.sloTargets);
  if (o.flowControl) return;
  if (o.requestTtl > 0) log.warn("--request-ttl has no effect without --flow-control");
  if (o.queueShedding) log.warn("--queue-shedding has no effect without --flow-control");
  if (o.inFlightEviction) log.warn("--in-flight-eviction has no effect without --flow-control");
}

function detectorParams(o: Readonly<GatewayParams>): DetectorParams {
  return {
    queueDepthThreshold: o.queueDepthThreshold,
    kvCacheUtilThreshold: o.kvCacheUtilThreshold,
    maxConcurrency: o.maxConcurrency,
  };
}

/** The queue's settings; its values were checked by checkAlways. */
function flowSettings(
  o: Readonly<GatewayParams>,
  log: Logger,
  priority: ReturnType<typeof priorityMap>,
): GatewaySettings {
  const det = detectorParams(o);
  if (o.saturationDetector === "never")
    log.warn('saturation detector "never" never gates dispatch: the gateway queue passes requests straight through');
  const tau = o.usageLimitThreshold;
  if (tau < 1 && o.dispatchOrder === "fifo")
    log.warn("--usage-limit-threshold < 1 gates bands by priority; dispatch follows priority order, not fifo");
  const fromFlag = parseSloTargetsFlag(o.sloTargets);
  if (fromFlag.size > 0 && o.dispatchOrder !== "slo-deadline")
    log.warn("--slo-targets has no effect without --dispatch-order slo-deadline");
  const targets = fromFlag.size > 0 ? fromFlag : checkTargetMap(o.sloTargetsMap);
  return {
    priority,
    detector: createDetector(o.saturationDetector, det),
    usageLimit: tau,
    roundRobin: o.fairnessPolicy === "round-robin",
    byDeadline: o.dispatchOrder === "slo-deadline",
    targets,
    maxDepth: o.maxGatewayQueueDepth,
    perBand: o.perBandCapacity,
    shedding: o.queueShedding,
    ttl: o.requestTtl,
    tick: o.dispatchTickInterval === 0 ? 1000 : o.dispatchTickInterval,
    eviction: o.inFlightEviction,
  };
}

/** `--slo-targets class=µs,...`. */
export function parseSloTargetsFlag(text: string): Map<string, number> {
  const out = new Map<string, number>();
  if (text.trim() === "") return out;
  for (const raw of text.split(",")) {
    const pair = raw.trim();
    const eq = pair.indexOf("=");
    if (eq < 0) throw new UserError(`--slo-targets: invalid format "${pair}" (expected key=value)`);
    const key = pair.slice(0, eq).trim();
    if (key === "") throw new UserError(`--slo-targets: empty class in "${pair}"`);
    const v = pair.slice(eq + 1).trim();
    if (!/^\d+$/.test(v) || Number(v) <= 0 || !Number.isSafeInteger(Number(v))) {
      throw new UserError(`--slo-targets: target for "${key}" must be a positive integer (µs), got "${v}"`);
    }
    out.set(key, Number(v));
  }
  return out;
}

function checkTargetMap(m: Readonly<Record<string, number>>): Map<string, number> {
  for (const [k, v] of Object.entries(m)) {
    if (!(v > 0)) throw new UserError(`slo_targets["${k}"] must be a positive integer (µs), got ${v}`);
  }
  return new Map(Object.entries(m));
}

function checkPriorities(m: Readonly<Record<string, number>>): ReturnType<typeof priorityMap> {
  for (const [k, v] of Object.entries(m)) {
    if (v < -100 || v > 100)
      throw new UserError(`slo_priorities override for "${k}": value ${v} out of range [-100, 100]`);
  }
  return priorityMap(m);
}

function checkBudgets(m: Readonly<Record<string, number>>): Map<string, number> | null {
  const entries = Object.entries(m);
  for (const [t, v] of entries) {
    if (!(Number.isFinite(v) && v >= 0 && v <= 1))
      throw new UserError(`tenant_budgets["${t}"] must be in [0, 1], got ${v}`);
  }
  return entries.length > 0 ? new Map(entries) : null;
}
