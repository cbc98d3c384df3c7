// What the page's form offers, read from the library: the run flags, the bundled models and
// GPUs, the workload presets and the registered policy names.

import "../../src/policy/builtins.js";
import "../../src/gateway/builtins.js";
import { readFileSync } from "node:fs";
import { modelCatalog } from "../../src/latency/backends/modelCatalog.js";
import { listedBackends } from "../../src/latency/backends/backend.js";
import { BUNDLED_DEFAULTS, BUNDLED_HARDWARE_V2 } from "../../src/util/paths.js";
import { readPresetsFromDefaults } from "../../src/workload/index.js";
import { routingPolicies } from "../../src/cluster/routing/routing.js";
import { scorers } from "../../src/cluster/scorers/scorer.js";
import { admissionPolicies } from "../../src/cluster/admission/admission.js";
import { schedulers } from "../../src/policy/scheduler.js";
import { priorityPolicies } from "../../src/policy/priority.js";
import { toolName } from "../../src/report/runData.js";
import type { PlaygroundInfo } from "../shared/protocol.js";
import { flagInfos } from "./params.js";

export function playgroundInfo(): PlaygroundInfo {
  const gpus = Object.keys(JSON.parse(readFileSync(BUNDLED_HARDWARE_V2, "utf8")) as Record<string, unknown>);
  const presets = Object.keys(readPresetsFromDefaults(BUNDLED_DEFAULTS));
  return {
    tool: toolName(),
    flags: flagInfos(),
    models: modelCatalog()
      .filter((m) => m.config !== "" || m.blackbox.length > 0)
      .map((m) => m.model),
    gpus,
    presets,
    choices: {
      "latency-model": listedBackends(),
      "routing-policy": routingPolicies.listed(),
      "admission-policy": admissionPolicies.listed(),
      scheduler: schedulers.listed(),
      "priority-policy": priorityPolicies.listed(),
      workload: ["distribution", ...presets],
    },
    scorers: scorers.listed(),
  };
}
