// The built-in workload sources, one registration line each (docs/extending.md "Adding a workload source").
import { workloadSources } from "./registry.js";
import { replayTraceSource } from "./replayTraceSource.js";
import { workloadSpecSource } from "./workloadSpecSource.js";
import { csvTraceSource } from "./csvTraceSource.js";
import { closedLoopSource } from "./closedLoopSource.js";
import { distributionSource } from "./distributionSource.js";
import { presetSource } from "./presetSource.js";

workloadSources.register(replayTraceSource);
workloadSources.register(workloadSpecSource);
workloadSources.register(csvTraceSource);
workloadSources.register(closedLoopSource);
workloadSources.register(distributionSource);
workloadSources.register(presetSource);
