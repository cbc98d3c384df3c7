// Prefill/decode disaggregation as a feature of a run (docs/prefill-decode.md): its flags, checked
// in BLIS's order before the policies; the pools' routers, decider and hardware derived once; the
// controller that takes over routing; each instance's role; the user-level projection of the metrics.

import type { Feature } from "../feature.js";
import type { PdConfig } from "../../pd/config.js";
import { PD_EXTENSION } from "../../pd/descriptor.js";
import { PD_FLAGS } from "./flags.js";
import { pdParams, type PdParams } from "./params.js";
import { validatePd } from "./validate.js";
import { pdSettings } from "./settings.js";
import { startPd } from "./run.js";

export const pd: Feature<PdParams, PdConfig> = {
  name: PD_EXTENSION.name,
  description: "prefill/decode disaggregation: prefill and decode pools with KV transfers between them",
  params: pdParams,
  flags: PD_FLAGS,
  incompatible: PD_EXTENSION.incompatible ?? [],
  validate: validatePd,
  checkedBeforePolicies: true,
  settings: pdSettings,
  start: (config, { log }) => startPd(config, log),
};
