// The seam between the cluster loop and prefill/decode disaggregation (src/pd,
// docs/prefill-decode.md): the cluster hands routing decisions and its PD events to a hook, and
// offers the hook the few operations it needs on the cluster. Without a hook nothing changes.

import type { Instance } from "../instance/instance.js";
import type { Request } from "../core/request.js";
import type { RouterState } from "./snapshot.js";
import type { DecisionTrace } from "../trace/decisionTrace.js";

/** Cluster-event ranks of the PD events (after admission 1 and routing 2 at equal times). */
export const RANK_PREFILL_ROUTING = 4;
export const RANK_TRANSFER_STARTED = 5;
export const RANK_TRANSFER_COMPLETED = 6;

/** What the cluster offers a disaggregation hook. */
export interface ClusterPort {
  readonly instances: readonly Instance[];
  readonly inFlight: Int32Array;
  readonly trace: DecisionTrace | null;
  /** The router state of a decision at `clock` about `req` (all candidate instances). */
  takeState(clock: number, req: Request): RouterState;
  /** Queues a PD cluster event. */
  schedule(time: number, rank: number, req: Request): void;
  /**
   * Sends `req` to instance `target` as a routed request (in-flight + 1, registered, an Arrival at
   * `clock`); `userLevel` counts it among the routed user requests.
   */
  routeTo(req: Request, target: number, clock: number, userLevel: boolean): void;
  /** Counts a user request routed to `target` without injecting anything. */
  countRouted(target: number): void;
  /** Puts `req` straight into `target`'s wait queue at `clock` (registered; in-flight unchanged). */
  enqueueDirect(req: Request, target: number, clock: number): void;
  /** Adds `delta` to the router's in-flight count of instance i. */
  addInFlight(i: number, delta: number): void;
  /** Instance i's signals changed outside its own events (a KV reservation). */
  instanceChanged(i: number): void;
  /** Applies a routing priority hint and the priority bridge to `req`. */
  applyPriority(req: Request, hint: number): void;
  /** A request rejected at routing: no routable instance in a pool. */
  rejectAtRouting(): void;
  /** A fresh sequence number (sub-requests get their own ledger rows). */
  nextSeq(): number;
}

/** Prefill/decode disaggregation as the cluster sees it. */
export interface DisaggregationHook {
  attach(port: ClusterPort): void;
  /** Replaces the routing decision of `req` at `clock`. */
  route(req: Request, clock: number): void;
  /** Runs a PD event (rank 4, 5 or 6). */
  onEvent(rank: number, req: Request, clock: number): void;
}
