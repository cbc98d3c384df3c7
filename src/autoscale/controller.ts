// The autoscaler as a cluster control (docs/autoscaling.md): its own event queue of NodeReady and
// InstanceLoaded (before the request events of their tick) and ScalingTick and ScaleActuation
// (after them), the pipeline Collector → Analyzer → Engine → stabilization → Actuator, and the
// lifecycle of the fleet.

import { EventQueue } from "../engine/eventQueue.js";
import { Rng, deriveStreamSeed } from "../engine/rng.js";
import type { ClusterExtension, ClusterPort, ExtensionDescriptor } from "../cluster/extension.js";
import type { Instance } from "../instance/instance.js";
import type { DecisionTrace } from "../trace/decisionTrace.js";
import { ACTIVE, SCHEDULING } from "../infra/lifecycle.js";
import { delayTicks, type Node } from "../infra/nodePools.js";
import { EV_LOADED, EV_NODE_READY, Fleet, type FleetContext } from "./fleet.js";
import { actuators, analyzers, collectors, drainPolicies, engines, stabilizers } from "./registries.js";
import type { AutoscaleSettings } from "./settings.js";
import type {
  Actuator,
  Analyzer,
  Collector,
  Decision,
  DrainPolicy,
  Engine,
  ModelSignals,
  Stabilizer,
  Variant,
} from "./types.js";
import { InvariantError } from "../util/errors.js";
import "./builtins.js";

const EV_TICK = 2;
const EV_ACTUATE = 3;

/** A scaling or lifecycle event (decision trace, stderr at --log info). */
export interface ScaleEvent {
  t: number;
  kind: string;
  /** The stderr text. */
  detail: string;
  /** The instance (or, for node events, the node) concerned. */
  instance: string;
  reason: string;
}

/** The fleet at one moment (time series): instances per lifecycle state, nodes by state (0 without pools). */
export interface FleetSample {
  byState: number[];
  nodesReady: number;
  nodesProvisioning: number;
}

const round = (v: number): string => String(Math.round(v));

export interface ControllerContext extends Omit<FleetContext, "port" | "schedule" | "note"> {
  horizon: number;
  blockSize: number;
  /** KV capacity of one replica in tokens. */
  replicaCapacityTokens: number;
  /** The decision trace (--trace-level decisions), which records the scaling events. */
  trace?: DecisionTrace | null;
}

/**
 * The autoscaler as a cluster extension: a timeline of control events beside the request pipeline.
 * Lifecycle events run before the request events of their tick, ticks and actuations after them;
 * both before instance events. It owns the fleet: it adds instances and decides which are routable.
 */
export const AUTOSCALE_EXTENSION: ExtensionDescriptor = {
  name: "autoscale",
  ranks: null,
  capabilities: ["timed", "fleet"],
};

export class AutoscaleController implements ClusterExtension {
  readonly descriptor = AUTOSCALE_EXTENSION;
  private readonly events = new EventQueue<Node | number | Decision[]>();
  readonly fleet: Fleet;
  readonly scaleEvents: ScaleEvent[] = [];
  private readonly collector: Collector;
  private readonly analyzer: Analyzer;
  private readonly engine: Engine;
  private readonly stabilizer: Stabilizer;
  private readonly actuator: Actuator;
  private readonly drainPolicy: DrainPolicy;
  private scrapeRng: Rng | null = null;
  private port: ClusterPort | null = null;

  constructor(
    private readonly ctx: ControllerContext,
    private readonly s: AutoscaleSettings,
  ) {
    const port = (): ClusterPort => this.cluster();
    this.fleet = new Fleet(
      {
        ...ctx,
        port,
        schedule: (t, kind, payload) => this.events.push(t, kind, payload),
        note: (t, kind, detail, subject, reason) => this.note(t, kind, detail, subject, reason),
      },
      s,
    );
    const fleet = this.fleet;
    const pools = fleet.pools;
    this.collector = collectors.create(
      s.collector,
      {},
      {
        state: (clock) => port().routerState(clock),
        get instances() {
          return port().instances;
        },
        get inFlight() {
          return port().inFlight;
        },
        variantOf: (i) => fleet.variants[i]!,
        costOf: (gpu) => pools?.costOf(gpu) ?? 0,
        pendingReplicas: () => fleet.counts().pending,
        replicaCapacityTokens: ctx.replicaCapacityTokens,
        blockSize: ctx.blockSize,
        model: ctx.model,
      },
    );
    this.analyzer = analyzers.create(s.analyzer, s.analyzerParams, {});
    this.engine = engines.create(
      s.engine,
      {},
      { freeSlots: (v) => (pools === null ? Infinity : pools.freeGpus(v.gpu)) },
    );
    this.stabilizer = stabilizers.create(
      s.stabilization,
      {},
      { upWindowUs: s.upWindowUs, downWindowUs: s.downWindowUs },
    );
    this.drainPolicy = drainPolicies.create(s.drainPolicy, {}, {});
    this.actuator = actuators.create(
      s.actuator,
      {},
      {
        scaleUp: (_model, v, now, reason) => fleet.scaleUp(v, now, reason),
        drainCandidates: (_model, v) => this.drainCandidates(v),
        drain: (inst, now, reason) => this.drain(inst, now, reason),
      },
    );
  }

  /** The floor the autoscaler keeps the routable and pending replicas at (outputs). */
  get minReplicas(): number {
    return this.s.minReplicas;
  }

  /** Keeps the port (the controller and its fleet reach the cluster only through it) and starts. */
  attach(port: ClusterPort): void {
    this.port = port;
    this.start();
  }

  private cluster(): ClusterPort {
    if (this.port === null) throw new InvariantError("the autoscaler is not attached to a cluster");
    return this.port;
  }

  /** Startup placement and the first tick at t = 0 (before any arrival is processed). */
  start(): void {
    this.fleet.start();
    if (this.s.intervalUs > 0) this.events.push(0, EV_TICK, null);
  }

  nextTime(): number {
    return this.events.peekTime();
  }

  nextIsEarly(): boolean {
    return this.events.peekKind() <= EV_LOADED;
  }

  runNext(arrivalsPending: boolean): void {
    const t = this.events.peekTime();
    const kind = this.events.peekKind();
    const payload = this.events.peekPayload();
    this.events.pop();
    if (kind === EV_NODE_READY) this.fleet.onNodeReady(payload as Node, t);
    else if (kind === EV_LOADED) this.fleet.onLoaded(payload as number, t);
    else if (kind === EV_TICK) this.tick(t, arrivalsPending);
    else this.actuator.apply(payload as Decision[], t);
  }

  afterInstanceEvents(i: number, t: number): void {
    this.fleet.afterInstanceEvents(i, t);
  }

  private tick(now: number, arrivalsPending: boolean): void {
    const decisions: Decision[] = [];
    for (const signals of this.collector.collect(now)) {
      const d = this.decide(signals);
      if (d !== null) decisions.push(d);
    }
    const passed = this.stabilizer.gate(now, decisions);
    if (passed.length > 0) {
      const d = this.s.scrapeDelay;
      const delay = delayTicks(d, () =>
        (this.scrapeRng ??= new Rng(deriveStreamSeed(this.ctx.seed, "autoscaler"))).normFloat64(),
      );
      this.events.push(now + delay, EV_ACTUATE, passed);
    }
    const next = now + this.s.intervalUs;
    // Unbounded runs stop ticking once no request is left to come or to finish.
    const busy = arrivalsPending || this.cluster().inFlight.some((v) => v > 0);
    if (this.ctx.horizon !== Infinity ? next <= this.ctx.horizon : busy) this.events.push(next, EV_TICK, null);
  }

  /** The engine's decision, kept within [min_replicas, max_replicas]. */
  private decide(s: ModelSignals): Decision | null {
    const routable = s.replicas.length;
    const pending = s.pendingReplicas;
    if (routable + pending < this.s.minReplicas) {
      const reason = `below min_replicas ${this.s.minReplicas}: ${routable} routable, ${pending} pending`;
      return {
        model: s.model,
        variant: this.defaultVariant(s),
        delta: this.s.minReplicas - routable - pending,
        reason,
      };
    }
    const a = this.analyzer.analyze(s);
    const d = a === null ? null : this.engine.decide(a);
    if (d === null || a === null) return null;
    const load = `demand ${round(a.totalDemand)}, supply ${round(a.totalSupply)} tokens`;
    d.reason =
      d.delta > 0
        ? `required capacity ${round(a.requiredCapacity)} tokens (${load})`
        : `spare capacity ${round(a.spareCapacity)} tokens (${load})`;
    if (d.delta > 0) {
      if (this.s.maxReplicas > 0) d.delta = Math.min(d.delta, this.s.maxReplicas - routable - pending);
      // Node pools at max_nodes hold no more replicas: asking would only fail placements.
      const pools = this.fleet.pools;
      if (pools !== null) d.delta = Math.min(d.delta, pools.slots(d.variant.tp, d.variant.gpu));
      return d.delta > 0 ? d : null;
    }
    // Never below min_replicas: the analyzer's spare capacity may cover every replica.
    d.delta = -Math.min(-d.delta, routable - this.s.minReplicas);
    return d.delta < 0 ? d : null;
  }

  private defaultVariant(s: ModelSignals): Variant {
    const first = s.replicas[0];
    if (first !== undefined) return first.variant;
    const pool = this.s.nodePools[0];
    return { gpu: pool !== undefined ? pool.gpuType : this.ctx.hardware, tp: this.ctx.tp };
  }

  /** Active replicas of the variant, least in flight first; ties: the newest first. */
  private drainCandidates(v: Variant): Instance[] {
    const { inFlight, instances } = this.cluster();
    return instances
      .filter((inst) => {
        const w = this.fleet.variants[inst.index]!;
        return inst.lifecycle === ACTIVE && w.gpu === v.gpu && w.tp === v.tp;
      })
      .sort((a, b) => inFlight[a.index]! - inFlight[b.index]! || b.index - a.index);
  }

  private drain(inst: Instance, now: number, reason: string): void {
    const i = inst.index;
    if (this.drainPolicy.redirectWaiting) {
      const moved = this.cluster().redirectWaiting(i, now);
      const detail = `${moved} waiting requests of ${inst.id} back to the router`;
      if (moved > 0)
        this.note(
          now,
          "redirect",
          detail,
          inst.id,
          `drain_policy redirect: ${moved} waiting requests back to the router`,
        );
    }
    this.fleet.drain(inst, now, reason);
  }

  private note(t: number, kind: string, detail: string, instance: string, reason: string): void {
    // Time order (equal times in arrival order): instances run their events in batches, so a
    // termination can be noted after a later one of another instance.
    let k = this.scaleEvents.length;
    while (k > 0 && this.scaleEvents[k - 1]!.t > t) k--;
    this.scaleEvents.splice(k, 0, { t, kind, detail, instance, reason });
    this.ctx.trace?.recordScaling(t, kind, instance, reason);
    this.ctx.log.info(`[autoscaler] t=${t} ${kind}: ${detail}`);
  }

  /** Instances per lifecycle state (STATE_NAMES order) and nodes by state at `now`, for the time series. */
  fleetSample(now: number): FleetSample {
    const byState = this.fleet.counts().byState;
    // Autoscaled replicas waiting for a node are not built yet: they count as Scheduling.
    byState[SCHEDULING]! += this.fleet.pending.filter((p) => p.index < 0).length;
    const census = this.fleet.pools?.census(now);
    return { byState, nodesReady: census?.ready ?? 0, nodesProvisioning: census?.provisioning ?? 0 };
  }
}
