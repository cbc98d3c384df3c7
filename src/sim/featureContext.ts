// What registered features see when they derive their settings (src/features/feature.ts
// FeatureContext): values other stages own, read here from the options and the latency backend so
// a feature reads none of the run options but its own.

import type { RunOptions } from "../config/runOptions.js";
import type { ResolvedLatency } from "../latency/backends/backend.js";
import { loadDefaultsFile } from "../latency/defaultsFile.js";
import type { FetchLike } from "../latency/modelConfig.js";
import type {
  Deployment,
  DefaultsFile,
  FeatureContext,
  LatencyServices,
  PolicyServices,
  WorkloadSettings,
} from "../features/feature.js";
import { InvariantError } from "../util/errors.js";
import type { Logger } from "../util/log.js";
import { latencyServices } from "./latencyServices.js";
import { policyServices } from "./policyServices.js";
import type { RoutingSettings } from "./simConfig.js";

/** The defaults file, read on the first block asked for. */
function defaultsFile(o: Readonly<RunOptions>): DefaultsFile {
  const path = o.defaultsFilepath;
  return { path, block: (key) => (loadDefaultsFile(path) as Record<string, unknown>)[key] };
}

/** The context of features configured before the latency backend: no deployment yet. */
export function earlyFeatureContext(
  o: Readonly<RunOptions>,
  explicit: ReadonlySet<string>,
  log: Logger,
): FeatureContext {
  const notYet = (what: string): never => {
    throw new InvariantError(`a feature that reserves GPU memory is configured before the latency backend: no ${what}`);
  };
  return {
    explicit,
    log,
    defaultsFile: defaultsFile(o),
    get deployment(): Deployment {
      return notYet("deployment");
    },
    get latency(): LatencyServices {
      return notYet("latency services");
    },
    get policies(): PolicyServices {
      return notYet("policy services");
    },
    get workload(): WorkloadSettings {
      return notYet("workload");
    },
  };
}

/** What the stages before the late features resolved, as their context is built from it. */
export interface ResolvedStages {
  lat: ResolvedLatency;
  horizon: number;
  routing: RoutingSettings;
  workload: WorkloadSettings;
  fetchImpl?: FetchLike;
}

/** The context of the other features: the deployment and the latency and policy stages' services. */
export function featureContext(
  o: Readonly<RunOptions>,
  explicit: ReadonlySet<string>,
  log: Logger,
  stages: ResolvedStages,
): FeatureContext {
  const { lat, horizon, routing, workload, fetchImpl } = stages;
  return {
    explicit,
    log,
    defaultsFile: defaultsFile(o),
    deployment: deploymentOf(o, lat, horizon),
    latency: latencyServices(o, explicit, lat, log, fetchImpl),
    policies: policyServices(o, routing),
    workload,
  };
}

/** The resolved values registered features may read (owned by the options and the latency backend). */
function deploymentOf(o: Readonly<RunOptions>, lat: ResolvedLatency, horizon: number): Deployment {
  const { hardware, tp, totalKvBlocks, backend } = lat;
  return {
    numInstances: o.numInstances,
    hardware,
    tp,
    totalKvBlocks,
    blockSize: o.blockSizeInTokens,
    horizon,
    model: o.model,
    backend,
    seed: BigInt.asIntN(64, BigInt(o.seed)),
    admissionPolicy: o.admissionPolicy,
    maxRunning: o.maxNumRunningReqs,
  };
}
