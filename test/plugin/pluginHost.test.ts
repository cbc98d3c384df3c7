// Plugins that would hang the run or end the process their own way (an endless loop in register()
// or score(), a top-level await that never settles, process.exit, an unhandled rejection): each
// ends `blis run` with one error line naming the plugin file, exit status 1 and no output, within
// the --plugin-timeout budget. Real processes, as a user runs them.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { withoutLatencyNote } from "../helpers/cli.js";

const BIN = fileURLToPath(new URL("../../src/cli/bin.js", import.meta.url));
const RUN = [
  "run",
  "--model",
  "meta-llama/llama-3.1-8b-instruct",
  "--num-requests",
  "20",
  "--routing-policy",
  "weighted",
];
const SCORER = (body: string): string =>
  `export function register(api) { api.registerScorer("s", () => ({ name: "s", score(_r, _s, out) { ${body} }, observe() {} })); }\n`;

interface Ended {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

function blis(args: string[], limitMs = 30_000): Promise<Ended> {
  const t0 = performance.now();
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  const timer = setTimeout(() => child.kill("SIGKILL"), limitMs);
  return new Promise((resolve) =>
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: performance.now() - t0 });
    }),
  );
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "blis-plugin-host-"));
process.on("exit", () => fs.rmSync(dir, { recursive: true, force: true }));

function plugin(name: string, text: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
}

const CASES: [string, string, string, RegExp][] = [
  [
    "an endless loop in register()",
    "loop-register.mjs",
    "export function register() { for (;;) {} }\n",
    /loading it or its register\(\) did not finish within 0\.5 s \(--plugin-timeout\)/,
  ],
  [
    "an endless loop in score()",
    "loop-score.mjs",
    SCORER("for (;;) {}"),
    /a call into it did not return within 0\.5 s \(--plugin-timeout\)/,
  ],
  [
    "an endless async register()",
    "async-register.mjs",
    "export async function register() { await new Promise(() => setInterval(() => {}, 1000)); }\n",
    /did not finish within 0\.5 s/,
  ],
  [
    "a top-level await that never settles",
    "tla.mjs",
    "await new Promise(() => {});\nexport function register() {}\n",
    /never finished \(a top-level await or a promise that never settles\)/,
  ],
  [
    "process.exit(0) in register()",
    "exit-register.mjs",
    "export function register() { process.exit(0); }\n",
    /called process\.exit\(0\)/,
  ],
  ["process.exit(3) in score()", "exit-score.mjs", SCORER("process.exit(3);"), /called process\.exit\(3\)/],
  [
    "process.exit at the top level",
    "exit-top.mjs",
    "process.exit();\nexport function register() {}\n",
    /called process\.exit\(0\)/,
  ],
  [
    "an unhandled rejection in register()",
    "reject.mjs",
    'export function register() { Promise.reject(new Error("late failure")); }\n',
    /unhandled rejection: late failure/,
  ],
  [
    "an exception thrown from a timer",
    "timer.mjs",
    'export async function register() { setTimeout(() => { throw new Error("from a timer"); }, 0); await new Promise((r) => setTimeout(r, 50)); }\n',
    /uncaught exception: from a timer/,
  ],
];

for (const [what, name, text, message] of CASES) {
  test(`${what}: one line naming the plugin file, exit 1, no output`, async () => {
    const file = plugin(name, text);
    const r = await blis([...RUN, "--routing-scorers", "s:1", "--plugin", file, "--plugin-timeout", "0.5"]);
    assert.equal(r.code, 1, r.stderr);
    assert.equal(r.stdout, "");
    // A failure during the run follows the run's latency line (docs/latency.md), its only other line.
    const lines = withoutLatencyNote(r.stderr.trimEnd().split("\n"));
    assert.equal(lines.length, 1, r.stderr);
    assert.ok(lines[0]!.startsWith(`error: plugin ${file}`), lines[0]);
    assert.match(lines[0]!, message);
    assert.ok(r.ms < 15_000, `took ${r.ms} ms`);
  });
}

test("a well-behaved plugin gives the same output as before, twice", async () => {
  const file = plugin("fine.mjs", SCORER("for (let i = 0; i < out.length; i++) out[i] = 1 / (1 + i);"));
  const args = [...RUN, "--num-instances", "3", "--routing-scorers", "s:1", "--plugin", file];
  const a = await blis(args);
  const b = await blis(args);
  assert.equal(a.code, 0, a.stderr);
  assert.match(a.stdout, /"completed_requests": 20/);
  assert.equal(a.stdout, b.stdout);
});

test("--plugin-timeout must be a number of seconds > 0", async () => {
  const file = plugin("ok.mjs", "export function register() {}\n");
  for (const bad of ["0", "-1", "abc"]) {
    const r = await blis([...RUN, "--plugin", file, "--plugin-timeout", bad]);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /--plugin-timeout/);
    assert.equal(r.stdout, "");
  }
});
