// Drives the CLI fuzz test: writes each generated case into a fresh temporary directory, runs it
// in the worker, checks the property, and removes the directory. `fuzzFamily` asserts the
// property with fast-check (seed and path printed on failure for replay); `collectFailures` keeps
// going after a failure to list the distinct ones, each shrunk to a small counterexample.

import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import fc from "fast-check";
import { concrete, DIR, renderCase, type Family, type FuzzCase } from "./case.js";
import { FAMILIES } from "./families.js";
import { REPO_ROOT } from "./flagValues.js";
import { checkOutcome, snapshot, type Failure } from "./oracle.js";
import { CASE_LIMIT_MS, type CaseRunner } from "./runner.js";

export const FAMILY_NAMES = Object.keys(FAMILIES) as Family[];
/**
 * Sweeps and searches start a worker process per job and run several simulations, so they get
 * twice the runner's per-case limit; beyond this they hang.
 */
const BATCH_TIMEOUT_MS = 2 * CASE_LIMIT_MS;

/** Runs one case in its own temporary directory; the failure, or null when the property holds. */
export async function runCase(runner: CaseRunner, c: FuzzCase): Promise<Failure | null> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "blis-fuzz-"));
  try {
    for (const d of c.dirs) fs.mkdirSync(path.join(dir, d), { recursive: true });
    for (const f of c.files) {
      const p = path.join(dir, f.name);
      fs.mkdirSync(path.dirname(p), { recursive: true });
      if (f.kind === "fifo") execFileSync("mkfifo", [p]);
      else if (f.kind === "zero-link") fs.symlinkSync("/dev/zero", p);
      else fs.writeFileSync(p, concrete(f.content, dir, REPO_ROOT));
    }
    const argv = c.argv.map((a) => concrete(a, dir, REPO_ROOT));
    const before = snapshot(dir);
    // Relative paths (a flag that swallowed the next argument as its file name) land in the case
    // directory, where the snapshot sees them, never in the caller's directory. The worker thread
    // shares the process's working directory.
    process.chdir(dir);
    const outcome = await runner.run(
      argv,
      c.family === "sweep" || c.family === "optimize" ? BATCH_TIMEOUT_MS : undefined,
    );
    process.chdir(os.tmpdir());
    return checkOutcome(c, outcome, { argv, dir, before, after: snapshot(dir) });
  } finally {
    process.chdir(os.tmpdir());
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export class PropertyFailure extends Error {
  constructor(readonly failure: Failure) {
    super(`${failure.kind}: ${failure.detail}`);
  }
}

export interface FuzzOptions {
  seed: number;
  numRuns: number;
  /** Replays one case: the path fast-check printed with the seed. */
  path?: string;
}

/**
 * Asserts the property over `numRuns` cases of one family. On failure, throws an error with what
 * went wrong, the shrunk counterexample (files and command line) and how to replay it.
 */
export async function fuzzFamily(runner: CaseRunner, family: Family, opts: FuzzOptions): Promise<number> {
  const property = fc.asyncProperty(FAMILIES[family], async (c) => {
    const f = await runCase(runner, c);
    if (f !== null) throw new PropertyFailure(f);
  });
  const d = await fc.check(property, {
    seed: opts.seed,
    numRuns: opts.numRuns,
    ...(opts.path !== undefined ? { path: opts.path } : {}),
  });
  if (!d.failed) return d.numRuns;
  const replay = `npm run fuzz -- --family ${family} --seed ${d.seed} --path ${d.counterexamplePath ?? ""}`;
  const ce = d.counterexample as [FuzzCase] | null;
  if (ce === null) {
    throw new Error(`${family}: the fuzzer itself failed: ${String(d.errorInstance)} (seed ${d.seed})`);
  }
  const err = d.errorInstance;
  const what = err instanceof PropertyFailure ? err.message : `the fuzzer itself failed: ${String(err)}`;
  throw new Error(
    `${family}: ${what}\nCounterexample (after ${d.numRuns} cases, shrunk ${d.numShrinks} times; ${DIR} is a fresh empty directory):\n` +
      `${renderCase(ce[0])}\nReplay: ${replay}`,
  );
}

export interface Finding {
  family: Family;
  signature: string;
  failure: Failure;
  /** The shrunk counterexample, rendered as files and a command line. */
  counterexample: string;
  seed: number;
  path: string;
}

/**
 * A failure without its particulars (paths, numbers, quoted names, sweep configurations), to tell
 * distinct failures apart; an unexpected exit status is one failure whatever the message.
 */
export function signature(family: Family, f: Failure): string {
  if (f.kind.startsWith("exit status")) return `${family} | ${f.kind}`;
  const detail = f.detail
    .replace(/\/tmp\/blis-fuzz-\w+/g, "DIR")
    .replace(/"[^"]*"|'[^']*'/g, "Q")
    .replace(/\brun \S+ seed/g, "run CONFIG seed")
    .replace(/-?\d+(\.\d+)?(e[-+]?\d+)?/gi, "N")
    .slice(0, 60);
  return `${family} | ${f.kind} | ${detail}`;
}

/**
 * Runs about `numRuns` cases of one family and returns each distinct failure once, shrunk:
 * after a failure, the search goes on (with the next seed) over cases whose failure is new.
 */
export async function collectFailures(
  runner: CaseRunner,
  family: Family,
  seed: number,
  numRuns: number,
  log: (s: string) => void,
): Promise<Finding[]> {
  const found: Finding[] = [];
  const known = new Set<string>();
  let left = numRuns;
  for (let round = 0; left > 0 && round < 200; round++) {
    const property = fc.asyncProperty(FAMILIES[family], async (c) => {
      const f = await runCase(runner, c);
      if (f !== null && !known.has(signature(family, f))) throw new PropertyFailure(f);
    });
    const s = seed + round;
    const d = await fc.check(property, { seed: s, numRuns: left });
    left -= d.numRuns;
    if (!d.failed || d.counterexample === null) break;
    const err = d.errorInstance;
    if (!(err instanceof PropertyFailure)) throw err instanceof Error ? err : new Error(String(err));
    const sig = signature(family, err.failure);
    known.add(sig);
    const finding: Finding = {
      family,
      signature: sig,
      failure: err.failure,
      counterexample: renderCase((d.counterexample as [FuzzCase])[0]),
      seed: s,
      path: d.counterexamplePath ?? "",
    };
    found.push(finding);
    log(`${sig}\n${finding.counterexample}\n(seed ${s}, path ${finding.path})\n`);
  }
  return found;
}
