// Signal cases of the CLI fuzz test: a real `blis` process (run, sweep, a sweep whose plugin loops
// for ever, a queue worker idle or busy, the playground) gets SIGINT, SIGTERM or SIGHUP, to itself
// or to its whole process group, at a random moment. It must end promptly, with no stack trace,
// either normally (exit 0 or 1) or by that signal; leave no process of its group running (sweep
// and worker pool children included); and leave no half-written results file.

import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { startRedis, type RedisServer } from "../queue/helpers.js";

const BIN = fileURLToPath(new URL("../../src/cli/bin.js", import.meta.url));
const LLAMA = "meta-llama/llama-3.1-8b-instruct";
const STACK = /^\s+at .+[:(]\d+|Unhandled|internal error|\b(TypeError|RangeError|ReferenceError)\b|Error \[ERR_/;
const SIGNO: Record<string, number> = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 };

const PLAN = (n: number): string =>
  `name: sig\nseeds: [1, 2]\ntimeout_s: 120\nbase:\n  flags:\n    model: ${LLAMA}\n    num-requests: ${n}\n    log: error\naxes:\n  - name: n\n    flag: num-instances\n    values: [1, 2]\n`;

const LOOPING_PLUGIN =
  'export function register(api) { api.registerScorer("s", () => ({ name: "s", score() { for (;;) {} }, observe() {} })); }\n';
const LOOP_PLAN = `name: loop\nseeds: [1]\ntimeout_s: 600\nbase:\n  flags:\n    model: ${LLAMA}\n    num-requests: 20\n    plugin: loop.mjs\n    routing-policy: weighted\n    routing-scorers: "s:1"\naxes:\n  - name: n\n    flag: num-instances\n    values: [1]\n`;

/** The Redis server of the worker cases, started by the first of them. */
let redis: Promise<RedisServer> | null = null;
let db = 0;

export interface SignalCase {
  command: "run" | "run-results" | "sweep" | "sweep-loop" | "worker" | "worker-busy" | "playground";
  requests: number;
  signal: "SIGINT" | "SIGTERM" | "SIGHUP";
  toGroup: boolean;
  delayMs: number;
}

export const signalCaseArb: fc.Arbitrary<SignalCase> = fc.record({
  command: fc.constantFrom<SignalCase["command"]>(
    "run",
    "run-results",
    "sweep",
    "sweep-loop",
    "worker",
    "worker-busy",
    "playground",
  ),
  requests: fc.constantFrom(50, 5000, 50000),
  signal: fc.constantFrom<SignalCase["signal"]>("SIGINT", "SIGTERM", "SIGHUP"),
  toGroup: fc.boolean(),
  delayMs: fc.integer({ min: 0, max: 1500 }),
});

async function argv(c: SignalCase, dir: string, helpers: (args: string[]) => void): Promise<string[]> {
  if (c.command === "playground") return ["playground", "--port", "0"];
  if (c.command === "sweep-loop") {
    fs.writeFileSync(path.join(dir, "loop.mjs"), LOOPING_PLUGIN);
    fs.writeFileSync(path.join(dir, "plan.yaml"), LOOP_PLAN);
    return ["sweep", path.join(dir, "plan.yaml"), "--jobs", "1", "--no-progress"];
  }
  if (c.command === "worker" || c.command === "worker-busy") {
    redis ??= startRedis();
    const url = `${(await redis).url}/${db++ % 16}`;
    if (c.command === "worker-busy") {
      // Runs short enough that a worker finishing the one in progress ends well within the limit.
      fs.writeFileSync(path.join(dir, "plan.yaml"), PLAN(Math.min(c.requests, 5000)));
      helpers(["sweep", path.join(dir, "plan.yaml"), "--queue", url, "--no-progress"]);
    }
    return ["worker", "--queue", url, "--concurrency", "1"];
  }
  if (c.command === "sweep") {
    fs.writeFileSync(path.join(dir, "plan.yaml"), PLAN(c.requests));
    return ["sweep", path.join(dir, "plan.yaml"), "--jobs", "1", "--no-progress", "--out", path.join(dir, "out")];
  }
  const base = ["run", "--model", LLAMA, "--num-requests", String(c.requests)];
  return c.command === "run" ? base : [...base, "--results-path", path.join(dir, "results.json")];
}

/** Live (not zombie) processes of the group. */
function live(pgid: number): string[] {
  const r = spawnSync("ps", ["-o", "pid=,stat=", "-g", String(pgid)], { encoding: "utf8" });
  return r.stdout
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "" && !/\sZ/.test(l));
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Runs one case; the problem, or null when the property holds. */
export async function runSignalCase(c: SignalCase): Promise<string | null> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "blis-sig-"));
  const after: (() => void)[] = [];
  try {
    const started: ChildProcess[] = [];
    const args = await argv(c, dir, (a) => started.push(spawn(process.execPath, [BIN, ...a], { stdio: "ignore" })));
    const child = spawn(process.execPath, [BIN, ...args], { detached: true, stdio: ["ignore", "ignore", "pipe"] });
    after.push(() => started.forEach((p) => p.kill("SIGKILL")));
    const pgid = child.pid!;
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const ended = new Promise<[number | null, NodeJS.Signals | null]>((r) =>
      child.once("close", (code, sig) => r([code, sig])),
    );
    await sleep(c.delayMs);
    try {
      process.kill(c.toGroup ? -pgid : pgid, c.signal);
    } catch {
      // already gone
    }
    const limit = new Promise<"hang">((r) => setTimeout(() => r("hang"), 20_000).unref());
    const result = await Promise.race([ended, limit]);
    if (result === "hang") {
      process.kill(-pgid, "SIGKILL");
      return `no exit 20 s after ${c.signal}`;
    }
    const [code, sig] = result;
    const line = stderr.split("\n").find((l) => STACK.test(l));
    if (line !== undefined) return `stack trace or internal error on stderr: ${line}`;
    const byItsSignal = sig === c.signal || code === 128 + SIGNO[c.signal]!;
    if (!(code === 0 || code === 1 || byItsSignal)) return `exit status ${code} / signal ${sig} after ${c.signal}`;
    for (let t = 0; t < 30 && live(pgid).length > 0; t++) await sleep(100);
    if (live(pgid).length > 0) return `processes of the group still running 3 s after exit: ${live(pgid).join(", ")}`;
    const results = path.join(dir, "results.json");
    if (fs.existsSync(results)) {
      try {
        JSON.parse(fs.readFileSync(results, "utf8"));
      } catch {
        return "half-written --results-path file";
      }
    }
    return null;
  } finally {
    after.forEach((f) => f());
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Stops the Redis server of the worker cases, if one was started. */
export async function stopSignalServers(): Promise<void> {
  const r = redis;
  redis = null;
  if (r !== null) await (await r).stop();
}

/** Asserts the property over `numRuns` signal cases; throws with the counterexample and how to replay it. */
export async function fuzzSignals(opts: { seed: number; numRuns: number; path?: string }): Promise<number> {
  const d = await checkSignals(opts).finally(() => stopSignalServers());
  if (!d.failed) return d.numRuns;
  throw new Error(
    `signal: ${String(d.errorInstance)}\n${JSON.stringify(d.counterexample)}\nreplay: npm run fuzz -- --family signal --seed ${d.seed} --path ${d.counterexamplePath ?? ""}`,
  );
}

function checkSignals(opts: { seed: number; numRuns: number; path?: string }): Promise<fc.RunDetails<[SignalCase]>> {
  return fc.check(
    fc.asyncProperty(signalCaseArb, async (c) => {
      const p = await runSignalCase(c);
      if (p !== null) throw new Error(p);
    }),
    {
      seed: opts.seed,
      numRuns: opts.numRuns,
      endOnFailure: true,
      ...(opts.path !== undefined ? { path: opts.path } : {}),
    },
  );
}
