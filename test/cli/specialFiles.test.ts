// Every reader of the program refuses devices, FIFOs, symbolic links to them and directories with
// one line naming the file (exit status 1), instead of blocking on the FIFO or filling memory from
// the device: goodput results, fit's --start and --data, sweep merge's --plan, a report directory's
// saved JSON, a model config folder, plugins, a resumed sweep's log and a plan's policy config.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { cli } from "../helpers/cli.js";

const M = ["--model", "meta-llama/llama-3.1-8b-instruct"];
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "blis-special-"));
process.on("exit", () => fs.rmSync(dir, { recursive: true, force: true }));

const hasFifo = spawnSync("mkfifo", [path.join(dir, "probe.fifo")]).status === 0;

function fifo(name: string): string {
  const p = path.join(dir, name);
  fs.mkdirSync(path.dirname(p), { recursive: true });
  assert.equal(spawnSync("mkfifo", [p]).status, 0);
  return p;
}

function link(name: string, target: string): string {
  const p = path.join(dir, name);
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.symlinkSync(target, p);
  return p;
}

/** Runs the command and checks: exit status, nothing on stdout, one error line (log lines aside), quick. */
async function refuses(args: string[], expected: string, code = 1): Promise<void> {
  const t0 = performance.now();
  const res = await cli(args);
  const ms = performance.now() - t0;
  const errors = res.stderr.filter((l) => !l.startsWith("level="));
  assert.equal(res.code, code, `${args.join(" ")}: exit status (${errors.join(" | ")})`);
  assert.equal(res.stdout, "");
  assert.deepEqual(errors, [expected]);
  assert.ok(ms < 8000, `${args.join(" ")}: took ${ms} ms`);
}

test("goodput: a device, a FIFO, /dev/urandom and a link to /dev/zero", { timeout: 30_000 }, async () => {
  await refuses(
    ["goodput", "/dev/zero"],
    "error: goodput: cannot read /dev/zero: not a regular file (character device)",
  );
  await refuses(
    ["goodput", "/dev/urandom"],
    "error: goodput: cannot read /dev/urandom: not a regular file (character device)",
  );
  const z = link("zero-link.json", "/dev/zero");
  await refuses(["goodput", z], `error: goodput: cannot read ${z}: not a regular file (character device)`);
  if (hasFifo) {
    const f = fifo("results.fifo");
    await refuses(["goodput", f], `error: goodput: cannot read ${f}: not a regular file (FIFO)`);
  }
});

test("fit: --start and --data name special files", { timeout: 30_000 }, async () => {
  const out = path.join(dir, "fit.yaml");
  const fit = ["fit", "--data", "h100-llama-2-7b-tp1-general", "--out", out];
  await refuses(
    [...fit, "--start", "/dev/zero"],
    "error: --start: cannot read /dev/zero: not a regular file (character device)",
  );
  if (!hasFifo) return;
  const start = fifo("start.yaml");
  await refuses([...fit, "--start", start], `error: --start: cannot read ${start}: not a regular file (FIFO)`);
  const csv = fifo("measured.csv");
  await refuses(["fit", "--data", csv, "--out", out], `error: --data ${csv}: not a regular file (FIFO)`);
  assert.equal(fs.existsSync(out), false);
});

test("sweep merge --plan /dev/zero", { timeout: 30_000 }, async () => {
  const shard = path.join(dir, "shard");
  fs.mkdirSync(shard, { recursive: true });
  await refuses(
    ["sweep", "merge", "--plan", "/dev/zero", "--out", path.join(dir, "merged"), shard],
    "error: /dev/zero: cannot read the plan file: not a regular file (character device)",
    2,
  );
});

test("report DIR whose saved summary.json or report.json is special", { timeout: 30_000 }, async () => {
  const a = path.join(dir, "rep-link");
  link("rep-link/summary.json", "/dev/zero");
  await refuses(
    ["report", a],
    `error: ${path.join(a, "summary.json")}: cannot read: not a regular file (character device)`,
  );
  if (!hasFifo) return;
  const b = path.join(dir, "rep-fifo");
  fifo("rep-fifo/report.json");
  await refuses(["report", b], `error: ${path.join(b, "report.json")}: cannot read: not a regular file (FIFO)`);
});

test("run: a model config folder whose config.json is special, and special plugins", { timeout: 30_000 }, async () => {
  const run = ["run", ...M, "--num-requests", "2"];
  const folder = path.join(dir, "mc-link");
  link("mc-link/config.json", "/dev/zero");
  const roofline = ["--latency-model", "roofline", "--hardware", "H100", "--tp", "1", "--model-config-folder", folder];
  await refuses(
    [...run, ...roofline],
    `error: Failed to load model config: read HF config "${path.join(folder, "config.json")}": not a regular file (character device)`,
  );
  await refuses(
    [...run, "--plugin", "/dev/zero"],
    "error: --plugin /dev/zero: cannot load module: not a regular file (character device)",
  );
  await refuses([...run, "--plugin", dir], `error: --plugin ${dir}: cannot load module: is a directory`);
  if (!hasFifo) return;
  const p = fifo("plugin.mjs");
  await refuses([...run, "--plugin", p], `error: --plugin ${p}: cannot load module: not a regular file (FIFO)`);
});

const PLAN = `name: special
seeds: [1]
timeout_s: 60
base:
  flags:
    model: meta-llama/llama-3.1-8b-instruct
    num-requests: 3
    log: error
axes:
  - name: n
    flag: num-instances
    values: [1]
`;

test(
  "a resumed sweep whose runs.jsonl is a FIFO; a plan whose policy-config is /dev/zero",
  { timeout: 60_000 },
  async () => {
    const plan = path.join(dir, "plan.yaml");
    fs.writeFileSync(plan, PLAN);
    if (hasFifo) {
      const out = path.join(dir, "sweep-out");
      const first = await cli(["sweep", plan, "--out", out, "--jobs", "1", "--no-progress"]);
      assert.equal(first.code, 0, first.stderr.join("\n"));
      fs.rmSync(path.join(out, "runs.jsonl"));
      fifo("sweep-out/runs.jsonl");
      await refuses(
        ["sweep", plan, "--out", out, "--jobs", "1", "--no-progress"],
        `error: ${path.join(out, "runs.jsonl")}: not a regular file (FIFO)`,
        2,
      );
    }
    const zeroPlan = path.join(dir, "zero-plan.yaml");
    fs.writeFileSync(zeroPlan, PLAN.replace("log: error", "log: error\n    policy-config: /dev/zero"));
    const t0 = performance.now();
    const res = await cli(["sweep", zeroPlan, "--out", path.join(dir, "zero-out"), "--jobs", "1", "--no-progress"]);
    assert.equal(res.code, 1);
    assert.ok(performance.now() - t0 < 30_000);
    const saved = fs.readFileSync(path.join(dir, "zero-out", "n=1", "1.stderr.txt"), "utf8");
    assert.match(saved, /open \/dev\/zero: not a regular file \(character device\)/);
  },
);
