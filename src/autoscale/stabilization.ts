// Stabilization windows (docs/autoscaling.md "The autoscaler"): a decision passes only once its
// direction's signal has lasted the window; a tick without that direction's signal restarts it.

import { z } from "zod";
import type { PolicyDescriptor } from "../util/policyRegistry.js";
import type { Decision, Stabilizer } from "./types.js";

class WindowStabilizer implements Stabilizer {
  /** First-signal time per model and direction. */
  private readonly upSince = new Map<string, number>();
  private readonly downSince = new Map<string, number>();

  constructor(
    private readonly upWindow: number,
    private readonly downWindow: number,
  ) {}

  gate(now: number, decisions: readonly Decision[]): Decision[] {
    const ups = new Set(decisions.filter((d) => d.delta > 0).map((d) => d.model));
    const downs = new Set(decisions.filter((d) => d.delta < 0).map((d) => d.model));
    for (const m of [...this.upSince.keys()]) if (!ups.has(m)) this.upSince.delete(m);
    for (const m of [...this.downSince.keys()]) if (!downs.has(m)) this.downSince.delete(m);
    const pass: Decision[] = [];
    for (const d of decisions) {
      const [since, window] = d.delta > 0 ? [this.upSince, this.upWindow] : [this.downSince, this.downWindow];
      const first = since.get(d.model);
      if (first === undefined) {
        since.set(d.model, now);
        if (window > 0) continue;
      } else if (now - first < window) {
        continue;
      }
      since.delete(d.model);
      pass.push(d);
    }
    return pass;
  }
}

export const windowStabilizer: PolicyDescriptor<{ upWindowUs: number; downWindowUs: number }, Stabilizer> = {
  name: "window",
  description: "a decision passes once its signal has lasted the direction's window",
  params: z.object({}) as never,
  flags: [],
  create: (_p, c) => new WindowStabilizer(c.upWindowUs, c.downWindowUs),
};
