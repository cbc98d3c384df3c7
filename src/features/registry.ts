// The registered features (src/features/builtins.ts lists the built-in ones). A feature's options
// are read once, through its schema, when a run is configured; what the run keeps is the feature
// bound to its typed settings (an ActiveFeature), never the options.

import { Registry } from "../util/registry.js";
import { parseParams, type ParamFlag, type ParamSchema } from "../util/policyRegistry.js";
import type {
  BundleKey,
  CheckContext,
  Feature,
  FeatureContext,
  FeatureRun,
  FeatureStartContext,
  Incompatibility,
  StartedFeatures,
  WorkloadFacts,
} from "./feature.js";

/** A feature that is on in a run, bound to its settings. */
export interface ActiveFeature {
  readonly name: string;
  readonly incompatible: readonly Incompatibility[];
  /** On but constraining nothing: other features' refusals ignore it. */
  readonly inert: boolean;
  readonly metricsKey: string | undefined;
  /** GPU memory it sets aside per instance, bytes (0: none). */
  readonly reservedBytes: number;
  /** Most instances it may add during the run (0: none). */
  readonly extraInstances: number;
  checkWorkload(workload: WorkloadFacts): void;
  start(context: FeatureStartContext): FeatureRun;
}

/** A registered feature with its option and settings types erased (parsing happens inside). */
export interface RegisteredFeature {
  readonly name: string;
  readonly description: string;
  readonly flags: readonly ParamFlag[];
  readonly bundleKeys: readonly BundleKey[];
  readonly params: ParamSchema<unknown>;
  /** Configured before the latency backend: it reserves GPU memory. */
  readonly early: boolean;
  /** Its options are checked right after the policy bundle, before the policies' (PD). */
  readonly checkedBeforePolicies: boolean;
  /** Checks its options in `source`, whether or not it is on. */
  check(source: Readonly<Record<string, unknown>>, context: CheckContext): void;
  /**
   * Reads its options from `source` (checking them unless `checked`) and, when it is on, binds it
   * to its settings.
   */
  configure(
    source: Readonly<Record<string, unknown>>,
    context: FeatureContext,
    checked?: boolean,
  ): Promise<ActiveFeature | null>;
  /** Checks the workload: through `active` when the feature is on, as an off feature otherwise. */
  checkWorkload(active: ActiveFeature | null, workload: WorkloadFacts): void;
}

/** The run of feature `name` in a finished run; null when it was off. */
export function featureRunOf(run: StartedFeatures, name: string): FeatureRun | null {
  return run.features.find((f) => f.feature.name === name)?.run ?? null;
}

/** `feature` on, with `settings` (a library caller building a SimConfig by hand binds its own). */
export function bindFeature<P, S>(feature: Feature<P, S>, settings: S): ActiveFeature {
  const { incompatible = [] } = feature;
  return {
    name: feature.name,
    incompatible: typeof incompatible === "function" ? incompatible(settings) : incompatible,
    inert: feature.inert?.(settings) ?? false,
    metricsKey: feature.metricsKey,
    reservedBytes: feature.reservedBytes?.(settings) ?? 0,
    extraInstances: feature.extraInstances?.(settings) ?? 0,
    checkWorkload: (w) => feature.checkWorkload?.(settings, w),
    start: (c) => feature.start(settings, c),
  };
}

export class FeatureRegistry {
  private readonly entries = new Registry<RegisteredFeature>("feature");

  register<P, S>(feature: Feature<P, S>): void {
    this.entries.register({
      name: feature.name,
      description: feature.description,
      flags: feature.flags,
      bundleKeys: feature.bundleKeys ?? [],
      params: feature.params as ParamSchema<unknown>,
      early: feature.reservedBytes !== undefined,
      checkedBeforePolicies: feature.checkedBeforePolicies === true && feature.reservedBytes === undefined,
      check: (source, context) => feature.validate?.(parseParams(feature.params, source), context),
      configure: async (source, context, checked = false) => {
        const params = parseParams(feature.params, source);
        if (!checked) feature.validate?.(params, context);
        const settings = await feature.settings(params, context);
        return settings === null ? null : bindFeature(feature, settings);
      },
      checkWorkload: (active, workload) =>
        active !== null ? active.checkWorkload(workload) : feature.checkWorkload?.(null, workload),
    });
  }

  has(name: string): boolean {
    return this.entries.has(name);
  }

  /** In registration order: the order they are configured, started and print their results. */
  all(): RegisteredFeature[] {
    return this.entries.all();
  }

  /** Removes a feature (tests register features for one run at a time). */
  unregister(name: string): void {
    this.entries.unregister(name);
  }
}

/**
 * Every feature a run can have beyond the built-in stages (src/features/builtins.ts; library users may register more).
 */
export const features = new FeatureRegistry();
