// `blis convert measured FILE --trace-header H --trace-data D` (docs/traces.md "Measured CSVs").

import type { Command } from "commander";
import { UserError } from "../util/errors.js";
import type { Logger } from "../util/log.js";
import { writeFileAtomic } from "../util/atomicWrite.js";
import { checkOutputPath, writeOutput } from "./outputPaths.js";

interface MeasuredFlags {
  traceHeader: string;
  traceData: string;
  arrivalColumn: string;
  inputColumn: string;
  outputColumn: string;
  ttftColumn: string;
  e2eColumn: string;
  timeUnit: string;
  promptCycle: string;
}

function cycle(v: string): number {
  const n = Number(v);
  if (!/^\d+$/.test(v.trim()) || !Number.isSafeInteger(n))
    throw new UserError(`--prompt-cycle must be a non-negative integer, got "${v}"`);
  return n;
}

export function registerConvertMeasured(convert: Command, logger: Logger): void {
  convert
    .command("measured")
    .description(
      "per-request measured CSV (arrival, token counts, TTFT, E2E) → trace v2 header and data for replay, calibrate and fit",
    )
    .argument("<file>", "CSV with a header row")
    .requiredOption("--trace-header <path>", "trace v2 header YAML to write")
    .requiredOption("--trace-data <path>", "trace v2 data CSV to write")
    .option("--arrival-column <name>", "arrival time column (from the start of the run)", "arrival_time_us")
    .option("--input-column <name>", "prompt token count column", "input_tokens")
    .option("--output-column <name>", "output token count column", "output_tokens")
    .option("--ttft-column <name>", "time-to-first-token column (after the arrival)", "ttft_us")
    .option("--e2e-column <name>", "end-to-end latency column (after the arrival)", "e2e_us")
    .option("--time-unit <unit>", "unit of the arrival, TTFT and E2E columns: us, ms or s", "us")
    .option(
      "--prompt-cycle <n>",
      "row k repeats the prompt of row k − N (the bundled traces: 100); 0 = no prompt sharing",
      "0",
    )
    .action(async (file: string, f: MeasuredFlags) => {
      checkOutputPath("--trace-header", f.traceHeader);
      checkOutputPath("--trace-data", f.traceData);
      const { measuredTraceTexts } = await import("../calibration/convertMeasured.js");
      const { readTextFile, FileReadError } = await import("../workload/util/files.js");
      const columns = {
        arrival: f.arrivalColumn,
        input: f.inputColumn,
        output: f.outputColumn,
        ttft: f.ttftColumn,
        e2e: f.e2eColumn,
      };
      const o = { columns, timeUnit: f.timeUnit, promptCycle: cycle(f.promptCycle) };
      let text: string;
      try {
        text = readTextFile(file);
      } catch (e) {
        if (e instanceof FileReadError) throw new UserError(`reading measured CSV: ${e.message}`);
        throw e;
      }
      // Both texts exist before either file is written; each is written whole or not at all.
      const out = measuredTraceTexts(text, file, o);
      writeOutput("--trace-data", f.traceData, out.data, writeFileAtomic);
      writeOutput("--trace-header", f.traceHeader, out.header, writeFileAtomic);
      logger.info(`wrote ${out.count} requests to ${f.traceHeader} and ${f.traceData}`);
    });
}
