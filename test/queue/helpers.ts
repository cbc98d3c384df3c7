// A real redis-server on 127.0.0.1 at a free port, and `blis` child processes (workers and
// coordinators) of the built command line, for the work-queue tests.

import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";

export const BIN = path.resolve(import.meta.dirname, "..", "..", "src", "cli", "bin.js");
export const REPO = path.resolve(import.meta.dirname, "..", "..", "..");

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

async function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, "127.0.0.1");
    s.on("connect", () => {
      s.destroy();
      resolve(true);
    });
    s.on("error", () => resolve(false));
  });
}

export interface RedisServer {
  url: string;
  stop(): Promise<void>;
}

/** Starts `redis-server --port P --save "" --appendonly no` and waits until it accepts connections. */
export async function startRedis(): Promise<RedisServer> {
  const port = await freePort();
  const proc = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    {
      stdio: "ignore",
    },
  );
  const failed = new Promise<never>((_, reject) =>
    proc.on("error", (e) => reject(new Error(`redis-server: ${e.message} (npm test installs it)`))),
  );
  for (let i = 0; i < 100 && !(await Promise.race([canConnect(port), failed])); i++) await sleep(50);
  return {
    url: `redis://127.0.0.1:${port}`,
    stop: async () => {
      proc.kill("SIGKILL");
      await new Promise((r) => proc.once("exit", r));
    },
  };
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

const started = new Set<ChildProcess>();

/** SIGKILLs every `blis` child still running, so that a failed test does not leave the test run waiting on them. */
export async function killAll(): Promise<void> {
  const left = [...started].filter((p) => p.exitCode === null && p.signalCode === null);
  await Promise.all(left.map((p) => new Promise((r) => (p.once("exit", r), p.kill("SIGKILL")))));
}

/** A `blis` child process with its stdout and stderr collected. */
export class Blis {
  readonly proc: ChildProcess;
  stdout = "";
  stderr = "";
  readonly exited: Promise<number | null>;

  constructor(args: string[]) {
    this.proc = spawn(process.execPath, [BIN, ...args], { stdio: ["ignore", "pipe", "pipe"], cwd: REPO });
    this.proc.stdout!.on("data", (d: Buffer) => (this.stdout += d.toString()));
    this.proc.stderr!.on("data", (d: Buffer) => (this.stderr += d.toString()));
    this.exited = new Promise((resolve) => this.proc.on("exit", (code) => resolve(code)));
    started.add(this.proc);
  }

  /** Resolves once stderr matches `re` (rejects after `ms`). */
  async waitFor(re: RegExp, ms = 30000): Promise<void> {
    const t0 = Date.now();
    while (!re.test(this.stderr)) {
      if (Date.now() - t0 > ms) throw new Error(`timed out waiting for ${re} in:\n${this.stderr}`);
      await sleep(20);
    }
  }

  /** Runs recorded by a worker: its `worker: <key> <status> in …` lines. */
  runs(): string[] {
    return [...this.stderr.matchAll(/^worker: (\[.*\]) \S+ in /gm)].map((m) => m[1]!);
  }

  async stop(signal: NodeJS.Signals = "SIGTERM"): Promise<number | null> {
    if (this.proc.exitCode === null && this.proc.signalCode === null) this.proc.kill(signal);
    return this.exited;
  }
}

export function worker(url: string, extra: string[] = []): Blis {
  return new Blis(["worker", "--queue", url, "--concurrency", "1", "--stall-timeout", "1", ...extra]);
}

/**
 * A plan of 2 configurations × 3 seeds whose runs take 0.3–0.5 s each in a warm worker: long
 * enough that a worker killed 100 ms after a run's start is still inside it.
 */
export function writePlan(dir: string, extra = ""): string {
  const file = path.join(dir, "plan.yaml");
  fs.writeFileSync(
    file,
    `name: queue-test
seeds: [1, 2, 3]
base:
  flags:
    model: meta-llama/llama-3.1-8b-instruct
    latency-model: blackbox
    num-requests: 8000
    rate: 400
    log: error
axes:
  - {name: instances, flag: num-instances, values: [2, 4]}
metrics: [ttft_mean, ttft_p99, e2e_p99, throughput, completed]
checks:
  conservation: true
${extra}`,
  );
  return file;
}

/**
 * Every file of a sweep directory but runs.jsonl (its order and wall times vary), for comparing two sweeps byte for
 * byte.
 */
export function sweepFiles(dir: string, sub = ""): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of fs.readdirSync(path.join(dir, sub), { withFileTypes: true })) {
    const rel = path.join(sub, e.name);
    if (e.isDirectory()) Object.assign(out, sweepFiles(dir, rel));
    else if (rel !== "runs.jsonl") out[rel] = fs.readFileSync(path.join(dir, rel), "utf8");
  }
  return out;
}

/** The run keys in runs.jsonl, in file order. */
export function recordedKeys(dir: string): string[] {
  return fs
    .readFileSync(path.join(dir, "runs.jsonl"), "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => {
      const r = JSON.parse(l) as { config: string; seed: number; rep: number };
      return JSON.stringify([r.config, r.seed, r.rep]);
    });
}
