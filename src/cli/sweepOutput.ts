// What `blis sweep` and `blis sweep merge` print when a sweep is done: the tables on stdout, where
// they were written, and the HTML report when asked for.

import type { OutputFormat } from "../experiment/render.js";
import type { SweepResult } from "../experiment/sweep.js";
import type { SweepReportOptions } from "../report/planOptions.js";
import type { CliIo } from "./io.js";

/** Prints the tables of a finished sweep (and writes the report) as `blis sweep` does. */
export async function printSweepResult(
  res: SweepResult,
  opts: { format: OutputFormat; report?: boolean },
  reportOptions: SweepReportOptions,
  io: CliIo,
): Promise<string | null> {
  const { renderReport } = await import("../experiment/render.js");
  const { sweepFailureLine } = await import("../experiment/report.js");
  io.stdout(renderReport(res.report, opts.format));
  if (res.outDir !== null)
    io.stderrLine(`sweep: tables written to ${res.outDir} (tables.md, tables.csv, summary.json)`);
  if (opts.report === true) {
    const { writeSweepReport } = await import("../report/sweepReport.js");
    io.stderrLine(`sweep: report written to ${writeSweepReport(res, reportOptions.pareto)}`);
  }
  return sweepFailureLine(res.report);
}
