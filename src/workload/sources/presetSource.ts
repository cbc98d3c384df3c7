// Preset mode (--workload chatbot, summarization, ...; docs/behavior.md "Sources and precedence"):
// a named token shape from the defaults file's `workloads:` block at --rate.

import { z } from "zod";
import { UserError } from "../../util/errors.js";
import { readPresetsFromDefaults, specFromPreset } from "./preset.js";
import { isDistributionMode, sharedWorkloadShape } from "./sharedParams.js";
import type { SourceContext, SpecOutput, WorkloadSource } from "./source.js";

const params = z.object({
  workload: sharedWorkloadShape.workload,
  rate: sharedWorkloadShape.rate,
  numRequests: sharedWorkloadShape.numRequests,
});
type PresetParams = z.infer<typeof params>;

function resolve(p: PresetParams, context: SourceContext): SpecOutput {
  if (!Number.isFinite(p.rate) || p.rate <= 0) throw new UserError(`--rate must be a finite value > 0, got ${p.rate}`);
  const presets = readPresetsFromDefaults(context.defaultsFilepath);
  return {
    kind: "spec",
    spec: specFromPreset(p.workload, presets, p.rate, p.numRequests, context.seed),
    maxRequests: p.numRequests,
    horizon: context.horizon,
    closedLoop: false,
  };
}

export const presetSource: WorkloadSource<PresetParams> = {
  name: "preset",
  description: "a named workload of the defaults file (chatbot, contentgen, summarization, multidoc)",
  params,
  // --workload is shared with distribution mode and CSV traces: it stays in the run's flag table.
  flags: [],
  rank: 600,
  // Every --workload name the other sources leave (an unknown one is refused by name).
  selects: (p) => p.workload !== "traces" && !isDistributionMode(p.workload),
  resolve,
};
