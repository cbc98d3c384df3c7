// The property every CLI case must satisfy: exit status 0 with well-formed output, or exit status 1
// with exactly one `error:` line on stderr naming the bad item, an empty stdout and no output file
// written or changed. No hang, no crash, no escaped exception or stack trace, ever.

import fs from "node:fs";
import path from "node:path";
import type { FuzzCase } from "./case.js";
import type { Outcome } from "./runner.js";
import { optimizeStdoutProblem, runStdoutProblem, sweepStdoutProblem } from "./stdoutFormats.js";
import { isTrue, namesBadItem, optionValues, type DirSnapshot } from "./oracleParts.js";

export { snapshot } from "./oracleParts.js";

export interface Failure {
  /** What went wrong, as a short category (used to group distinct failures). */
  kind: string;
  detail: string;
}

/** An exception that reached the user as such: its stack, its class, or an engine message. */
const LEAK =
  /internal error|^\s+at .+[:(]\d+|\b(TypeError|RangeError|ReferenceError)\b|Cannot read propert|is not a function|is not iterable|Maximum call stack|Invalid (typed )?array length|out of memory/;
/**
 * The one documented panic (docs/behavior.md C22): a latency model that cannot be built from the
 * given coefficients or model config, as BLIS reports it. Any other panic is a leak.
 */
const C22_PANIC =
  /panic: (NewInstanceSimulator\(instance_\d+\): NewLatencyModel: )?(latency model|trained-physics model): /;
/** Log lines of the leveled logger: allowed on stderr next to the outcome. */
const LOG_LINE = /^level=\w+ /;

function fail(kind: string, detail: string): Failure {
  return { kind, detail };
}

/** First stderr or stdout line that shows an escaped exception. */
function leak(o: Extract<Outcome, { kind: "exit" }>): string | null {
  const bad = (l: string): boolean =>
    (LEAK.test(l) || (l.includes("panic:") && !C22_PANIC.test(l))) && !LOG_LINE.test(l);
  const line = [...o.stderr, ...o.stdout.split("\n")].find(bad);
  return line ?? null;
}

export interface Checked {
  argv: string[];
  dir: string;
  before: DirSnapshot;
  after: DirSnapshot;
}

/** Checks one outcome; null when the property holds. */
export function checkOutcome(c: FuzzCase, o: Outcome, run: Checked): Failure | null {
  if (o.kind === "timeout") return fail("hang", `no result after ${Math.round(o.ms)} ms`);
  if (o.kind === "crash") return fail("crash", o.message);
  if (o.escaped.length > 0) return fail("escaped exception", o.escaped[0]!);
  const leaked = leak(o);
  if (leaked !== null) return fail("exception text on stderr/stdout", leaked);
  if (o.code === 0) return successProblem(c, o.stdout, run);
  if (o.code === 1 && c.family === "sweep" && o.stdout !== "") return sweepFailedRunsProblem(c, o, run);
  if (o.code === 1 || (o.code === 2 && c.family === "sweep")) return failureProblem(c, o, run);
  if (o.code === 2 && c.family !== "optimize") return panicProblem(o, run);
  return fail(`exit status ${o.code}`, o.stderr.join(" | "));
}

/** The documented exit status 2 of `blis run` (C22): one panic line, nothing printed or written. */
function panicProblem(o: Extract<Outcome, { kind: "exit" }>, run: Checked): Failure | null {
  const lines = o.stderr.filter((l) => !LOG_LINE.test(l));
  if (lines.length !== 1 || !lines[0]!.startsWith("panic: "))
    return fail(`exit status ${o.code}`, o.stderr.join(" | "));
  if (o.stdout !== "") return fail("stdout written before failing", lines[0]!);
  const changed = changedPaths(run.before, run.after);
  return changed.length > 0
    ? fail("files written before failing", `${lines[0]!}; ${changed.slice(0, 4).join(", ")}`)
    : null;
}

/**
 * A sweep that ran but had a failed run or check (README "Exit status" of sweeps): exit status 1
 * with the tables printed (and written under --out) and one `error: sweep:` line.
 */
function sweepFailedRunsProblem(c: FuzzCase, o: Extract<Outcome, { kind: "exit" }>, run: Checked): Failure | null {
  const lines = o.stderr.filter((l) => !LOG_LINE.test(l) && l.startsWith("error:"));
  if (lines.length !== 1 || !lines[0]!.startsWith("error: sweep: ")) {
    return fail(
      "stdout written before failing",
      `${lines.join(" | ")} (stdout: ${o.stdout.slice(0, 80).replace(/\n/g, "\\n")}…)`,
    );
  }
  return successProblem(c, o.stdout, run);
}

/** A warning of sweeps and searches about one of their runs: they go on without it. */
const RUN_WARNING = /^warning: run /;
/** Progress lines of sweeps and searches (plain lines when stderr is not a terminal). */
const PROGRESS = /^(sweep|optimize): /;

function failureProblem(c: FuzzCase, o: Extract<Outcome, { kind: "exit" }>, run: Checked): Failure | null {
  const batch = c.family === "sweep" || c.family === "optimize";
  const lines = o.stderr.filter((l) => !LOG_LINE.test(l) && !(batch && (RUN_WARNING.test(l) || PROGRESS.test(l))));
  if (lines.length !== 1 || !lines[0]!.startsWith("error: ")) {
    return fail(
      `exit ${o.code} without exactly one error line`,
      `${lines.length} lines: ${lines.slice(0, 3).join(" | ")}`,
    );
  }
  const line = lines[0]!;
  if (o.stdout !== "")
    return fail("stdout written before failing", `${line} (stdout: ${o.stdout.slice(0, 80).replace(/\n/g, "\\n")}…)`);
  if (!namesBadItem(line, c, run.argv, run.dir)) return fail("error line names no flag, key, file or line", line);
  // A search whose runs went (a baseline lacking a value its constraints need) keeps them in its
  // resumable store under --out, documented as such; nothing else may change.
  const out = optionValues(c.family, run.argv).get("--out");
  const ran = c.family === "optimize" && o.stderr.some((l) => RUN_WARNING.test(l)) && out !== undefined;
  const outRel = ran ? path.relative(run.dir, path.resolve(run.dir, out)) : null;
  const changed = changedPaths(run.before, run.after).filter(
    (p) => outRel === null || !inside(p.replace(/^\w+ /, ""), outRel),
  );
  if (changed.length > 0) return fail("files written before failing", `${line}; ${changed.slice(0, 4).join(", ")}`);
  return null;
}

const inside = (p: string, dir: string): boolean =>
  dir !== "" && !dir.startsWith("..") && (p === dir || p.startsWith(dir + path.sep));

function changedPaths(before: DirSnapshot, after: DirSnapshot): string[] {
  const out: string[] = [];
  for (const [p, v] of after) if (before.get(p) !== v) out.push(before.has(p) ? `changed ${p}` : `created ${p}`);
  for (const p of before.keys()) if (!after.has(p)) out.push(`removed ${p}`);
  return out;
}

function successProblem(c: FuzzCase, stdout: string, run: Checked): Failure | null {
  // Output paths relative to the case directory, the working directory of the run.
  const opts = new Map(
    [...optionValues(c.family, run.argv)].map(([k, v]) => [
      k,
      OUTPUT_OPTIONS.has(k) && v !== "" ? path.resolve(run.dir, v) : v,
    ]),
  );
  const problem =
    c.family === "sweep"
      ? sweepProblem(stdout, opts)
      : c.family === "optimize"
        ? optimizeProblem(stdout, opts)
        : runProblem(stdout, opts);
  return problem === null
    ? null
    : fail(problem.startsWith("missing output") ? "missing output file" : "malformed stdout", problem);
}

function jsonFileProblem(file: string, what: string, check: (v: unknown) => boolean): string | null {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch {
    return `missing output ${what} ${file}`;
  }
  try {
    return check(JSON.parse(text)) ? null : `${what} ${file} does not hold what it should`;
  } catch {
    return `${what} ${file} is not JSON`;
  }
}

const exists = (file: string, what: string): string | null =>
  fs.existsSync(file) ? null : `missing output ${what} ${file}`;

type Options = Map<string, string>;

const OUTPUT_OPTIONS = new Set(["--results-path", "--report", "--out"]);

const requestsOk = (r: unknown): boolean | undefined => (r === undefined ? undefined : Array.isArray(r));

function runProblem(stdout: string, opts: Options): string | null {
  const expect = {
    fitness: (opts.get("--fitness-weights") ?? "") !== "",
    fairness: isTrue(opts.get("--print-fairness")),
    traceSummary: isTrue(opts.get("--summarize-trace")) && opts.get("--trace-level") === "decisions",
  };
  const p = runStdoutProblem(stdout, expect);
  if (p !== null) return p;
  const results = opts.get("--results-path") ?? "";
  if (results !== "") {
    const r = jsonFileProblem(
      results,
      "--results-path",
      // BLIS leaves `requests` out when no request reached an instance.
      (v) =>
        typeof v === "object" &&
        v !== null &&
        [undefined, true].includes(requestsOk((v as { requests?: unknown }).requests)),
    );
    if (r !== null) return r;
  }
  const report = opts.get("--report") ?? "";
  if (report === "") return null;
  const ext = path.extname(report).toLowerCase();
  const data = `${ext === ".html" || ext === ".htm" ? report.slice(0, -ext.length) : report}.json`;
  return (
    exists(report, "--report") ?? jsonFileProblem(data, "--report data", (v) => typeof v === "object" && v !== null)
  );
}

function sweepProblem(stdout: string, opts: Options): string | null {
  const p = sweepStdoutProblem(stdout, opts.get("--format") ?? "text");
  if (p !== null) return p;
  const out = opts.get("--out");
  if (out === undefined) return null;
  for (const f of ["tables.md", "tables.csv", "runs.jsonl"]) {
    const e = exists(path.join(out, f), "--out");
    if (e !== null) return e;
  }
  const summary = jsonFileProblem(path.join(out, "summary.json"), "--out", (v) => typeof v === "object" && v !== null);
  if (summary !== null || !opts.has("--report")) return summary;
  return exists(path.join(out, "report.html"), "--report");
}

function optimizeProblem(stdout: string, opts: Options): string | null {
  const p = optimizeStdoutProblem(stdout);
  if (p !== null) return p;
  const out = opts.get("--out");
  if (out === undefined) return "optimize succeeded without --out";
  for (const f of ["evaluations.csv", "convergence.md"]) {
    const e = exists(path.join(out, f), "--out");
    if (e !== null) return e;
  }
  return jsonFileProblem(path.join(out, "evaluations.json"), "--out", (v) => typeof v === "object" && v !== null);
}
