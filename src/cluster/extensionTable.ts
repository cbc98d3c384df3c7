// The extensions attached to one cluster (docs/architecture.md "Cluster extensions"): the one
// place that checks their declarations against each other, and the tables the loop dispatches by.

import { InvariantError } from "../util/errors.js";
import {
  declares,
  EXCLUSIVE_CAPABILITIES,
  type AdmittingExtension,
  type ClusterExtension,
  type RankedExtension,
  type RoutingExtension,
  type TimedExtension,
} from "./extension.js";

/** Ranks below this belong to the cluster: arrivals 0, admission 1, routing 2. */
export const FIRST_EXTENSION_RANK = 3;
/** Highest cluster-event rank (the event queue keeps ranks in a byte; the table stays small). */
export const LAST_RANK = 31;

const hasOnEvent = (e: ClusterExtension): e is RankedExtension => e.onEvent !== undefined;
const hasRoute = (e: ClusterExtension): e is RoutingExtension => e.route !== undefined;
const hasAdmit = (e: ClusterExtension): e is AdmittingExtension =>
  e.admit !== undefined && e.onArrival !== undefined && e.onRouted !== undefined;
const hasTimeline = (e: ClusterExtension): e is TimedExtension =>
  e.nextTime !== undefined &&
  e.nextIsEarly !== undefined &&
  e.runNext !== undefined &&
  e.afterInstanceEvents !== undefined;

export class ExtensionTable {
  readonly list: ClusterExtension[] = [];
  /** The owner of each rank (null: none); the loop indexes it with a queued event's rank. */
  readonly byRank: (RankedExtension | null)[] = new Array<RankedExtension | null>(LAST_RANK + 1).fill(null);
  router: RoutingExtension | null = null;
  admitter: AdmittingExtension | null = null;
  timed: TimedExtension | null = null;
  /** Whether an instance's events can create cluster events. */
  instanceTriggered = false;

  /** Checks `e`'s declarations against the cluster's and the attached extensions', then registers it. */
  add(e: ClusterExtension): void {
    const d = e.descriptor;
    this.checkRanks(e);
    for (const c of EXCLUSIVE_CAPABILITIES) {
      if (!declares(e, c)) continue;
      const other = this.list.find((o) => declares(o, c));
      if (other !== undefined) {
        throw new InvariantError(`cluster extensions "${other.descriptor.name}" and "${d.name}" both declare "${c}"`);
      }
    }
    if (d.ranks !== null) {
      if (!hasOnEvent(e)) throw missing(d.name, "ranks", "onEvent");
      for (let r = d.ranks.first; r <= d.ranks.last; r++) this.byRank[r] = e;
    }
    if (declares(e, "routes")) this.router = hasRoute(e) ? e : throwMissing(d.name, "routes", "route");
    if (declares(e, "admits"))
      this.admitter = hasAdmit(e) ? e : throwMissing(d.name, "admits", "admit, onArrival and onRouted");
    if (declares(e, "timed"))
      this.timed = hasTimeline(e)
        ? e
        : throwMissing(d.name, "timed", "nextTime, nextIsEarly, runNext and afterInstanceEvents");
    if (declares(e, "instances") && e.instanceConfig === undefined)
      throw missing(d.name, "instances", "instanceConfig");
    if (declares(e, "instance-triggered")) this.instanceTriggered = true;
    this.list.push(e);
  }

  /** A rank range inside the extension ranks, disjoint from every attached extension's. */
  private checkRanks(e: ClusterExtension): void {
    const { name, ranks } = e.descriptor;
    if (ranks === null) return;
    const { first, last } = ranks;
    if (!(Number.isInteger(first) && Number.isInteger(last) && first <= last)) {
      throw new InvariantError(`cluster extension "${name}": bad rank range ${first}–${last}`);
    }
    if (first < FIRST_EXTENSION_RANK || last > LAST_RANK) {
      throw new InvariantError(
        `cluster extension "${name}": ranks ${first}–${last} leave ${FIRST_EXTENSION_RANK}–${LAST_RANK} (0–2 are arrival, admission and routing)`,
      );
    }
    for (const o of this.list) {
      const r = o.descriptor.ranks;
      if (r !== null && first <= r.last && r.first <= last) {
        throw new InvariantError(
          `cluster extensions "${o.descriptor.name}" (ranks ${r.first}–${r.last}) and "${name}" (ranks ${first}–${last}) overlap`,
        );
      }
    }
  }
}

function missing(name: string, what: string, methods: string): InvariantError {
  return new InvariantError(`cluster extension "${name}" declares "${what}" but has no ${methods}`);
}

function throwMissing(name: string, what: string, methods: string): never {
  throw missing(name, what, methods);
}
