// The built-in features, one registration line each (docs/extending.md "Adding a feature").
import { features } from "./registry.js";
import { lora } from "./lora/lora.js";
import { speculativeDecoding } from "./speculative/speculative.js";
import { queueSnapshot } from "./queueSnapshot/queueSnapshot.js";
import { autoscale } from "./autoscale/autoscale.js";

features.register(lora);
features.register(speculativeDecoding);
features.register(queueSnapshot);
features.register(autoscale);
