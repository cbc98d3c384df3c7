// The built-in stages of the autoscaler pipeline and the drain policies.

import { z } from "zod";
import { actuators, analyzers, collectors, drainPolicies, engines, stabilizers } from "./registries.js";
import { defaultCollector } from "./collector.js";
import { saturationAnalyzer } from "./analyzer.js";
import { greedyEngine, unlimitedEngine } from "./engines.js";
import { windowStabilizer } from "./stabilization.js";
import { directActuator } from "./actuator.js";

if (!collectors.has("default")) {
  collectors.register(defaultCollector);
  analyzers.register(saturationAnalyzer);
  engines.register(unlimitedEngine);
  engines.register(greedyEngine);
  stabilizers.register(windowStabilizer);
  actuators.register(directActuator);
  const none = z.object({}) as never;
  drainPolicies.register({
    name: "wait",
    description: "a draining instance finishes its queue and batch, then terminates",
    params: none,
    flags: [],
    create: () => ({ redirectWaiting: false }),
  });
  drainPolicies.register({
    name: "redirect",
    description: "waiting requests that never started go back to the router; running ones finish",
    params: none,
    flags: [],
    create: () => ({ redirectWaiting: true }),
  });
}
