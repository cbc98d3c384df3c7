// The built-in features, one registration line each (docs/extending.md "Adding a feature").
import { features } from "./registry.js";
import type { Feature } from "./feature.js";
import { lora } from "./lora/lora.js";
import { pd } from "./pd/pd.js";
import { speculativeDecoding } from "./speculative/speculative.js";
import { queueSnapshot } from "./queueSnapshot/queueSnapshot.js";
import { autoscale } from "./autoscale/autoscale.js";
import { gateway } from "./gateway/gateway.js";
import { kvCpuTier } from "./kvCpuTier/kvCpuTier.js";
import { saturationDetectors } from "./saturation/saturation.js";

features.register(lora);
features.register(pd);
features.register(speculativeDecoding);
features.register(queueSnapshot);
features.register(autoscale);
features.register(gateway);
features.register(kvCpuTier);
features.register(saturationDetectors);

type OptionsOf<F> = F extends Feature<infer P, infer _S> ? P : never;
/** Each option may be left out or undefined (its default), as in the run options. */
type Optional<T> = { [K in keyof T]?: T[K] | undefined };

/** The built-in features' options, as a library caller may give them beside the run options (`simulate`). */
export type BuiltinFeatureOptions = Optional<
  OptionsOf<typeof lora> &
    OptionsOf<typeof pd> &
    OptionsOf<typeof speculativeDecoding> &
    OptionsOf<typeof queueSnapshot> &
    OptionsOf<typeof autoscale> &
    OptionsOf<typeof gateway> &
    OptionsOf<typeof kvCpuTier> &
    OptionsOf<typeof saturationDetectors>
>;
