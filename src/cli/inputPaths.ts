// Input files named by flags are checked before any work starts: a device, FIFO or directory, or a
// file over its size limit, is refused with the flag and the path (README.md "Input and output files").
// Missing files are left to the readers, whose messages say what they expected.

import type { RunInput } from "../config/runOptions.js";
import { UserError } from "../util/errors.js";
import { DATA_FILE_LIMIT, inputFileProblem, SPEC_FILE_LIMIT } from "../util/inputFile.js";

/** Throws `<flag> <file>: <reason>` when `file` exists but cannot be read as an input. */
export function checkInputPath(flag: string, file: string | undefined, limit: number): void {
  if (file === undefined || file === "") return;
  // A readers' "cannot open  " would not show which flag held the blank.
  if (file.trim() === "") throw new UserError(`${flag} ${JSON.stringify(file)}: blank path`);
  const why = inputFileProblem(file, limit);
  if (why !== null) throw new UserError(`${flag} ${file}: ${why}`);
}

/** The file-valued run flags and their limits (by option key: features' options included). */
const RUN_INPUTS: readonly [string, string, number][] = [
  ["workloadSpec", "--workload-spec", SPEC_FILE_LIMIT],
  ["workloadTracesFilepath", "--workload-traces-filepath", DATA_FILE_LIMIT],
  ["replayTrace", "--replay-trace", SPEC_FILE_LIMIT],
  ["replayTraceData", "--replay-trace-data", DATA_FILE_LIMIT],
  ["policyConfig", "--policy-config", SPEC_FILE_LIMIT],
  ["defaultsFilepath", "--defaults-filepath", SPEC_FILE_LIMIT],
  ["latencyCoeffs", "--latency-coeffs", SPEC_FILE_LIMIT],
  ["hardwareConfig", "--hardware-config", SPEC_FILE_LIMIT],
  ["saturationConfig", "--saturation-config", SPEC_FILE_LIMIT],
  ["loraConfig", "--lora-config", SPEC_FILE_LIMIT],
];

/** The flags of RUN_INPUTS (the browser playground offers none of them). */
export const RUN_INPUT_FLAGS: readonly string[] = RUN_INPUTS.map(([, flag]) => flag);

/** Checks the input files of run options (blis run, replay, observe, fit). */
export function checkRunInputs(input: RunInput): void {
  const values: Readonly<Record<string, unknown>> = input;
  for (const [key, flag, limit] of RUN_INPUTS) {
    const v = values[key];
    if (typeof v === "string") checkInputPath(flag, v, limit);
  }
}
