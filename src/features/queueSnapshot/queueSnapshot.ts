// Queue snapshot (docs/extending.md "Adding a feature", the worked example): at one simulated time,
// each instance's waiting and running requests and used KV blocks, printed with the metrics.
// It answers "what did the fleet look like at the peak?" without a report.

import { z } from "zod";
import { UserError } from "../../util/errors.js";
import type { Feature } from "../feature.js";
import { QueueSnapshotExtension } from "./extension.js";

const params = z.object({
  /** Simulated time of the snapshot, µs; 0 = off. */
  queueSnapshotAtUs: z.number().int().default(0),
});

export interface QueueSnapshotSettings {
  atUs: number;
}

export const queueSnapshot: Feature<z.infer<typeof params>, QueueSnapshotSettings> = {
  name: "queue-snapshot",
  description: "each instance's waiting and running requests and used KV blocks at one simulated time",
  params,
  flags: [
    {
      key: "queueSnapshotAtUs",
      flag: "--queue-snapshot-at-us",
      type: "int64",
      help: "simulated time (µs) of a snapshot of every instance's queues and KV use, printed with the metrics; 0 = off",
      group: "output",
      bundle: "queue_snapshot.at_us",
    },
  ],
  validate(p) {
    if (p.queueSnapshotAtUs < 0) throw new UserError(`--queue-snapshot-at-us must be >= 0, got ${p.queueSnapshotAtUs}`);
  },
  settings(p, { deployment, log }) {
    if (p.queueSnapshotAtUs === 0) return null;
    if (p.queueSnapshotAtUs > deployment.horizon) {
      log.warn(
        `--queue-snapshot-at-us ${p.queueSnapshotAtUs} is after the horizon (${deployment.horizon}); no snapshot is taken`,
      );
      return null;
    }
    return { atUs: p.queueSnapshotAtUs };
  },
  start(settings, { instances }) {
    const extension = new QueueSnapshotExtension(settings.atUs, instances);
    return { extension, results: () => extension.results() };
  },
};
