// `npm run bench`: wall time, CPU time and peak RSS of `blis run` cases, one process per run, each
// against its target. `npm run bench -- --quick` runs the single-instance cases up to 100,000
// requests only; `--repeat N` runs every case N times and keeps the fastest run (by default
// cases under 2 s run 5 times, the others once); `--only PREFIX` runs the cases whose kind starts with
// PREFIX (`--only long-context`).
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { argsFor, type CaseKind } from "./benchCase.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const BIN = path.join(here, "..", "src", "cli", "bin.js");
const RUSAGE = path.join(here, "rusage.js");

interface Case {
  kind: CaseKind;
  instances: number;
  n: number;
  /** Target wall seconds and peak RSS in MB; null: shown for the growth with requests only. */
  maxWallS: number | null;
  maxRssMb: number | null;
  quick: boolean;
}

const PLAN: Case[] = [
  { kind: "default", instances: 1, n: 1, maxWallS: null, maxRssMb: null, quick: true },
  { kind: "default", instances: 1, n: 10000, maxWallS: 0.45, maxRssMb: null, quick: true },
  { kind: "default", instances: 1, n: 100000, maxWallS: null, maxRssMb: null, quick: true },
  { kind: "default", instances: 1, n: 1000000, maxWallS: 30, maxRssMb: 1024, quick: false },
  { kind: "least-loaded-8", instances: 8, n: 1000000, maxWallS: 45, maxRssMb: 1024, quick: false },
  { kind: "multiturn-8", instances: 8, n: 1000000, maxWallS: 40, maxRssMb: 1024, quick: false },
  { kind: "instances-10000", instances: 10000, n: 100000, maxWallS: 20, maxRssMb: 2048, quick: false },
  // Mooncake-style trace, prompts of about 12,000 tokens, a third of the hash blocks shared
  // (bench/longContextTrace.ts).
  { kind: "long-context-512", instances: 8, n: 12031, maxWallS: 0.6, maxRssMb: null, quick: false },
  { kind: "long-context-16", instances: 8, n: 12031, maxWallS: 1.5, maxRssMb: null, quick: false },
  { kind: "long-context-16", instances: 8, n: 1000000, maxWallS: 60, maxRssMb: 2048, quick: false },
  // The default case with speculative decoding: every request is visited every step.
  { kind: "speculative", instances: 1, n: 100000, maxWallS: null, maxRssMb: null, quick: true },
  { kind: "speculative", instances: 1, n: 1000000, maxWallS: 50, maxRssMb: 1024, quick: false },
];

interface Measure {
  wallS: number;
  cpuS: number;
  rssMb: number;
}

/** One `blis run` process: wall time from spawn to exit, CPU time and peak RSS from the OS. */
function runOnce(args: string[], dir: string): Measure {
  const usageFile = path.join(dir, "rusage.json");
  fs.rmSync(usageFile, { force: true });
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, ["--import", RUSAGE, BIN, ...args], {
    stdio: ["ignore", "ignore", "pipe"],
    encoding: "utf8",
    env: { ...process.env, BLIS_BENCH_RUSAGE: usageFile },
    maxBuffer: 64 * 1024 * 1024,
  });
  const wallS = Number(process.hrtime.bigint() - t0) / 1e9;
  if (r.status !== 0) throw new Error(`blis ${args.join(" ")} exited with ${r.status}: ${r.stderr.trim()}`);
  const u = JSON.parse(fs.readFileSync(usageFile, "utf8")) as { cpuS: number; rssMb: number };
  return { wallS, cpuS: u.cpuS, rssMb: u.rssMb };
}

function best(args: string[], dir: string, repeat: number | null): Measure {
  let m = runOnce(args, dir);
  const times = repeat ?? (m.wallS < 2 ? 5 : 1);
  for (let i = 1; i < times; i++) {
    const next = runOnce(args, dir);
    if (next.wallS < m.wallS) m = next;
  }
  return m;
}

function verdict(c: Case, m: Measure): string {
  if (c.maxWallS === null && c.maxRssMb === null) return "";
  const ok = (c.maxWallS === null || m.wallS <= c.maxWallS) && (c.maxRssMb === null || m.rssMb <= c.maxRssMb);
  return ok ? "pass" : "FAIL";
}

function targetText(c: Case): string {
  const parts: string[] = [];
  if (c.maxWallS !== null) parts.push(`≤ ${c.maxWallS} s`);
  if (c.maxRssMb !== null) parts.push(`≤ ${c.maxRssMb >= 1024 ? `${c.maxRssMb / 1024} GB` : `${c.maxRssMb} MB`}`);
  if (parts.length > 0) return parts.join(", ");
  return c.n === 1 ? "(startup)" : "(growth)";
}

const USAGE = "usage: npm run bench -- [--quick] [--repeat N] [--only CASE-PREFIX]";

/** Prints the usage (on stdout when asked for, else the problem on stderr) and exits. */
function usage(problem: string | null): never {
  if (problem === null) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  process.stderr.write(`error: ${problem}\n${USAGE}\n`);
  process.exit(1);
}

function parseArgs(argv: string[]): { quick: boolean; repeat: number | null; only: string } {
  let quick = process.env["BLIS_BENCH_QUICK"] === "1";
  let repeat: number | null = null;
  let only = "";
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--quick") quick = true;
    else if (a === "--repeat" && i + 1 < argv.length && Number(argv[i + 1]) >= 1)
      repeat = Math.floor(Number(argv[++i]));
    else if (a === "--only" && i + 1 < argv.length) only = argv[++i]!;
    else usage(a === "--help" || a === "-h" ? null : `unknown argument ${a}`);
  }
  return { quick, repeat, only };
}

const { quick, repeat, only } = parseArgs(process.argv.slice(2));
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "blis-bench-"));
const cpu = os.cpus()[0]?.model.trim() ?? "unknown CPU";
process.stdout.write(
  `blis run, one process per row (best of the repeats); ${os.cpus().length} × ${cpu}, node ${process.version}\n`,
);
process.stdout.write(
  "case              instances   requests   wall_s    cpu_s   peak_rss_MB   target           result\n",
);
// CPU seconds of the default case by request count: the growth check, less disturbed by other load.
const defaultCpu = new Map<number, number>();
for (const c of PLAN) {
  if ((quick && !c.quick) || !c.kind.startsWith(only)) continue;
  const m = best(argsFor(c.kind, c.n, dir), dir, repeat);
  if (c.kind === "default") defaultCpu.set(c.n, m.cpuS);
  process.stdout.write(
    `${c.kind.padEnd(17)} ${String(c.instances).padStart(9)} ${String(c.n).padStart(10)} ${m.wallS.toFixed(2).padStart(8)} ${m.cpuS
      .toFixed(2)
      .padStart(8)} ${m.rssMb.toFixed(0).padStart(13)}   ${targetText(c).padEnd(16)} ${verdict(c, m)}\n`,
  );
}
// Growth with requests: the default case's CPU time after startup (the 1-request run), per 10×.
const startup = defaultCpu.get(1) ?? 0;
const sizes = [10000, 100000, 1000000].filter((n) => defaultCpu.has(n));
for (let i = 1; i < sizes.length; i++) {
  const a = defaultCpu.get(sizes[i - 1]!)! - startup;
  const b = defaultCpu.get(sizes[i]!)! - startup;
  process.stdout.write(
    `default ${sizes[i - 1]} → ${sizes[i]} requests: CPU time after startup × ${(b / a).toFixed(1)} (linear: × 10)\n`,
  );
}
fs.rmSync(dir, { recursive: true, force: true });
