// `blis report RESULTS [--out FILE]`: rebuilds an HTML report from saved results.

import fs from "node:fs";
import type { Command } from "commander";
import type { CliIo } from "./io.js";
import { checkOutputFiles } from "./outputPaths.js";
import { UserError } from "../util/errors.js";
import { DATA_FILE_LIMIT, inputFileProblem } from "../util/inputFile.js";

function isDirectory(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

export function registerReportCommand(program: Command, io: CliIo): void {
  program
    .command("report")
    .description("rebuild an HTML report from saved results, without rerunning")
    .argument(
      "<results>",
      "a run report's JSON (beside the HTML of blis run --report), or a sweep --out directory or its summary.json",
    )
    .option(
      "--out <file>",
      "where to write the HTML (default: beside the results: x.json → x.html, DIR → DIR/report.html)",
    )
    .addHelpText(
      "after",
      "\nThe page is self-contained (charts embedded, no network access) and opens from disk.\n" +
        "Examples:\n  blis run --model meta-llama/llama-3.1-8b-instruct --report out/run.html   # also writes out/run.json\n" +
        "  blis report out/run.json --out out/run-again.html\n  blis report out/hscale        # a sweep directory → out/hscale/report.html",
    )
    .action(async (results: string, opts: { out?: string }) => {
      if (!isDirectory(results)) {
        const why = inputFileProblem(results, DATA_FILE_LIMIT);
        if (why !== null) throw new UserError(`${results}: cannot read: ${why}`);
      }
      if (opts.out !== undefined) checkOutputFiles("--out", [opts.out]);
      const { rebuildReport } = await import("../report/rebuild.js");
      const r = rebuildReport(results, opts.out);
      io.stderrLine(`report: ${r.kind} report written to ${r.html}`);
    });
}
