// Flags of the post-hoc saturation detectors (docs/saturation.md "Flags").
import type { ParamFlag } from "../../util/policyRegistry.js";

const sat = (key: string, flag: string, help: string, metavar?: string): ParamFlag => ({
  key,
  flag,
  type: "string",
  group: "output",
  help,
  ...(metavar !== undefined ? { metavar } : {}),
});

export const SATURATION_FLAGS: ParamFlag[] = [
  sat(
    "detectors",
    "--detectors",
    'label the run STABLE, BACKLOGGED or OVERLOADED after it ends: composite, threshold, backlog-drift, a comma list, or "all"',
    "names",
  ),
  sat(
    "saturationConfig",
    "--saturation-config",
    "YAML with optional threshold: {threshold_ms} and backlog_drift: {window_size_sec, ...} blocks",
    "path",
  ),
  sat("saturationReport", "--saturation-report", 'write the detectors\' {"final", "trace"} JSON here', "path"),
  sat(
    "saturationFinalWindow",
    "--saturation-final-window",
    "window of the final vote, a duration such as 10s (default: backlog_drift.window_size_sec, else 30s)",
    "duration",
  ),
];
