import type { Request } from "../core/request.js";

interface Tracked {
  req: Request;
  priority: number;
  dispatched: number;
  instance: number;
}

/**
 * Routed sheddable requests, candidates of in-flight eviction (docs/gateway.md "In-flight
 * eviction"). Requests that reached an end on their instance are dropped lazily, when a choice
 * is made.
 */
export class EvictionTracker {
  private items: Tracked[] = [];

  add(req: Request, priority: number, dispatched: number, instance: number): void {
    this.items.push({ req, priority, dispatched, instance });
  }

  get size(): number {
    return this.items.length;
  }

  /**
   * Removes and returns the victim among the live entries: the lowest priority, then the latest
   * dispatch, then the larger request ID. Null when none is live.
   */
  pick(alive: (req: Request) => boolean): Request | null {
    this.items = this.items.filter((t) => alive(t.req));
    let best = -1;
    for (let i = 0; i < this.items.length; i++) {
      if (best < 0 || before(this.items[i]!, this.items[best]!)) best = i;
    }
    if (best < 0) return null;
    const [t] = this.items.splice(best, 1);
    return t!.req;
  }
}

function before(a: Tracked, b: Tracked): boolean {
  if (a.priority !== b.priority) return a.priority < b.priority;
  if (a.dispatched !== b.dispatched) return a.dispatched > b.dispatched;
  const ia = a.req.id;
  const ib = b.req.id;
  return ia > ib;
}
