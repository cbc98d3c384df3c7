// The queue snapshot's hook into the cluster loop: one event of its own rank at the snapshot time.
// Cluster events run before instance events of the same tick, so the snapshot shows each instance
// after its events before that tick. Like any queued cluster event it keeps the run going until its
// time: a snapshot after the last completion shows an idle fleet.

import type { ClusterExtension, ClusterPort, ExtensionDescriptor } from "../../cluster/extension.js";
import type { Instance } from "../../instance/instance.js";
import { InvariantError } from "../../util/errors.js";

/** Its cluster-event rank (docs/architecture.md "Cluster extensions", the rank table). */
export const QUEUE_SNAPSHOT_RANK = 20;

export const QUEUE_SNAPSHOT_EXTENSION: ExtensionDescriptor = {
  name: "queue-snapshot",
  ranks: { first: QUEUE_SNAPSHOT_RANK, last: QUEUE_SNAPSHOT_RANK },
  capabilities: [],
};

/** What the metrics block prints under `features["queue-snapshot"]`. */
export interface QueueSnapshotResults {
  at_us: number;
  waiting: number[];
  running: number[];
  kv_used_blocks: number[];
}

export class QueueSnapshotExtension implements ClusterExtension {
  readonly descriptor = QUEUE_SNAPSHOT_EXTENSION;
  private taken: QueueSnapshotResults | null = null;

  constructor(
    private readonly atUs: number,
    private readonly instances: readonly Instance[],
  ) {}

  attach(port: ClusterPort): void {
    port.schedule(this.atUs, QUEUE_SNAPSHOT_RANK, null);
  }

  onEvent(): void {
    const live = this.instances;
    this.taken = {
      at_us: this.atUs,
      waiting: live.map((i) => i.waitQueue.length),
      running: live.map((i) => i.running.length),
      kv_used_blocks: live.map((i) => i.kv.used),
    };
  }

  results(): QueueSnapshotResults {
    if (this.taken === null) throw new InvariantError(`the queue snapshot at ${this.atUs} µs did not run`);
    return this.taken;
  }
}
