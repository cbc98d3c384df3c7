// The cluster loop with prefill/decode disaggregation (docs/prefill-decode.md): the same loop,
// whose routing and PD events a hook takes over through the port below.

import { ClusterSimulator } from "./cluster.js";
import type { ClusterPort, DisaggregationHook } from "./disaggregation.js";

export class DisaggregatedCluster extends ClusterSimulator {
  /** Turns on prefill/decode disaggregation: the hook takes over routing (docs/prefill-decode.md). */
  setDisaggregation(hook: DisaggregationHook): void {
    this.pd = hook;
    const port: ClusterPort = {
      instances: this.instances,
      inFlight: this.inFlight,
      trace: this.opts.trace,
      takeState: (clock, req) => this.snapshots.take(clock, req),
      schedule: (time, rank, req) => this.events.push(time, rank, req),
      routeTo: (req, target, clock, userLevel) => this.inject(req, target, clock, userLevel),
      countRouted: (target) => this.countRouted(target),
      enqueueDirect: (req, target, clock) => {
        req.instance = target;
        this.ledger.register(req);
        const inst = this.instances[target]!;
        inst.enqueueDirect(req, clock);
        this.nextInstance.update(target, inst.nextEventTime());
        this.snapshots.instanceChanged(target);
        if (this.observer !== null) this.observer.onRouted(req, target, clock);
      },
      addInFlight: (i, delta) => {
        this.inFlight[i] = this.inFlight[i]! + delta;
        this.snapshots.inFlightChanged(i);
      },
      instanceChanged: (i) => this.snapshots.instanceChanged(i),
      applyPriority: (req, hint) => this.applyPriority(req, hint),
      rejectAtRouting: () => this.routingRejected++,
      nextSeq: () => this.seq++,
    };
    hook.attach(port);
  }
}
