import { RoutingDecision, type RoutingPolicy } from "./routing.js";
import type { RouterState } from "../snapshot.js";

/** Candidates in turn: counter mod the number of candidates. */
export class RoundRobinRouting implements RoutingPolicy {
  readonly name = "round-robin";
  private counter = 0;
  private readonly d = new RoutingDecision();
  route(_req: unknown, state: RouterState): RoutingDecision {
    const c = this.counter++;
    this.d.target = c % state.snapshots.length;
    this.d.reason = `round-robin[${c}]`;
    return this.d;
  }
}
