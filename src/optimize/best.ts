// The best configuration found: its run options, command lines and the policy bundle file
// (best.yaml) with a header saying where it comes from and how to use it.

import path from "node:path";
import { stringify } from "yaml";
import type { RunInput } from "../config/runOptions.js";
import { bundleFor, type BestBundle } from "./bundle.js";
import { commandLine, displayPath, shellQuote, workloadFlag } from "./commandLine.js";
import { decodeFromRecord } from "./design.js";
import { inputFor, type Evaluated } from "./evaluate.js";
import { fmtValue, pct } from "./format.js";
import type { OptimizeResult } from "./search.js";

export interface BestSummary {
  e: Evaluated;
  input: RunInput;
  command: string;
  bundle: BestBundle;
  bundleCommand: string;
  bundleYaml: string;
  /** Workload spec text to write to outDir/workload.yaml (inline base specs), or null. */
  workloadYaml: string | null;
}

/** The best evaluation as a command line and a policy bundle; null when none is feasible. */
export function summarizeBest(res: OptimizeResult): BestSummary | null {
  const e = res.best;
  if (e === null) return null;
  const { space } = res;
  const input = inputFor(space, decodeFromRecord(space, e.rec));
  if (typeof input === "string") throw new Error(`optimize: the best point cannot be run: ${input}`);
  const wl = workloadFlag(space, res.outDir);
  const command = commandLine(input, wl.flagPath);
  const bundle = bundleFor(space, input);
  const bundlePath = path.join(res.outDir, "best.yaml");
  const bundleCommand = commandLine(
    input,
    wl.flagPath,
    ["--policy-config", shellQuote(displayPath("policyConfig", path.resolve(bundlePath)))],
    bundle.covered,
  );
  const head: string[] = [
    `# Policy bundle of the best configuration found by blis optimize (search "${space.name}", evaluation #${e.rec.index + 1} of ${res.evaluations.length}).`,
    `# ${space.objective.metric} (${space.objective.direction}, mean over seeds ${space.seeds.join(", ")}): ${fmtValue(e.objective!)}` +
      (res.baseline?.objective != null
        ? ` (baseline ${fmtValue(res.baseline.objective)}, ${pct(e.objective!, res.baseline.objective)})`
        : ""),
  ];
  for (const c of e.constraints)
    head.push(`# constraint ${c.metric} ${c.text}: ${c.value === null ? "-" : fmtValue(c.value)}`);
  if (bundle.inBundle.length === 0) {
    head.push(
      "# None of the searched parameters has a policy-bundle key: this bundle is empty; use the command line below.",
    );
  } else head.push(`# Parameters in this bundle: ${bundle.inBundle.join(", ")}.`);
  if (bundle.notInBundle.length > 0) {
    head.push(
      `# Not expressible in a bundle (pass as flags): ${bundle.notInBundle.map((x) => `${x.name} = ${x.words.join(" ")}`).join("; ")}.`,
    );
  }
  head.push(
    "# Full command line:",
    `#   ${command}`,
    "# With this bundle (explicit flags win over bundle values, so the bundle's settings are not repeated):",
    `#   ${bundleCommand}`,
  );
  const body = Object.keys(bundle.bundle).length === 0 ? "{}\n" : stringify(bundle.bundle, { lineWidth: 0 });
  return {
    e,
    input,
    command,
    bundle,
    bundleCommand,
    bundleYaml: head.join("\n") + "\n" + body,
    workloadYaml: wl.writeInline,
  };
}
