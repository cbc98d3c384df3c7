// `blis goodput RESULTS...`: SLO attainment and goodput per class of finished runs side by side,
// from their results files (docs/gateway.md "Comparing runs").

import type { Command } from "commander";
import type { CliIo } from "./io.js";
import { UserError } from "../util/errors.js";
import { mergeSloTargets, parseSloFlag } from "../metrics/sloTargets.js";
import { goodputFromRecords } from "../metrics/goodputRecords.js";
import { readGoodputResults, type GoodputResults } from "./goodputResults.js";

interface Opts {
  sloTtft?: string;
  sloItl?: string;
  sloE2e?: string;
}

interface Row {
  run: string;
  cls: string;
  count: number;
  attainment: number;
  goodput: number;
}

export function registerGoodputCommand(program: Command, io: CliIo): void {
  program
    .command("goodput")
    .description("compare SLO attainment and goodput per class of runs, from their --results-path files")
    .argument("<results...>", "results files of `blis run --results-path`")
    .option("--slo-ttft <targets>", 'TTFT targets "class=duration,..." (recomputed from the per-request records)')
    .option("--slo-itl <targets>", "mean-ITL targets")
    .option("--slo-e2e <targets>", "E2E targets")
    .addHelpText(
      "after",
      "\nWithout targets, each run's own goodput (from its --slo-* flags) is shown; its denominators count\n" +
        "every arrival. With targets, goodput is recomputed from the per-request records, which hold only\n" +
        "the requests that reached an instance.",
    )
    .action((files: string[], opts: Opts) => {
      const targets = mergeSloTargets(
        {
          ttft: parseSloFlag("--slo-ttft", opts.sloTtft ?? ""),
          itl: parseSloFlag("--slo-itl", opts.sloItl ?? ""),
          e2e: parseSloFlag("--slo-e2e", opts.sloE2e ?? ""),
        },
        undefined,
      );
      const rows = files.flatMap((f) => runRows(f, readGoodputResults(f), targets, io));
      io.stdout(renderRows(rows));
    });
}

function runRows(file: string, r: GoodputResults, targets: ReturnType<typeof mergeSloTargets>, io: CliIo): Row[] {
  if (targets !== undefined) {
    warnAbsentClasses(file, r, Object.keys(targets), io);
    return goodputFromRecords(r.requests ?? [], targets, r.vllm_estimated_duration_s).map((g) => ({
      run: file,
      cls: g.cls,
      count: g.count,
      attainment: g.attainment,
      goodput: g.goodputRps,
    }));
  }
  if (r.per_class === undefined) {
    throw new UserError(
      `goodput: ${file} has no goodput (run with --slo-ttft/--slo-itl/--slo-e2e, or give targets here)`,
    );
  }
  return Object.entries(r.per_class).map(([cls, c]) => ({
    run: file,
    cls,
    count: c.count,
    attainment: c.slo_attainment,
    goodput: c.goodput_rps,
  }));
}

/** A target class that no record of the file has would silently count 0: say which classes there are. */
function warnAbsentClasses(file: string, r: GoodputResults, classes: string[], io: CliIo): void {
  const present = new Set((r.requests ?? []).map((q) => q.slo_class ?? "default"));
  for (const cls of classes) {
    if (present.has(cls)) continue;
    const have = present.size > 0 ? [...present].sort().join(", ") : "none";
    io.stderrLine(
      `warning: goodput: ${file} has no request of class "${cls}" (its classes: ${have}; requests without a class are "default")`,
    );
  }
}

function renderRows(rows: Row[]): string {
  const head = ["run", "class", "requests", "attainment", "goodput (req/s)"];
  const cells = rows.map((r) => [r.run, r.cls, String(r.count), r.attainment.toFixed(4), r.goodput.toFixed(3)]);
  const width = head.map((h, k) => Math.max(h.length, ...cells.map((c) => c[k]!.length)));
  const line = (c: string[]): string =>
    c
      .map((x, k) => (k < 2 ? x.padEnd(width[k]!) : x.padStart(width[k]!)))
      .join("  ")
      .trimEnd() + "\n";
  return line(head) + line(width.map((w) => "-".repeat(w))) + cells.map(line).join("");
}
