// A sweep killed with SIGTERM (or SIGKILL) takes its pool workers with it: none runs on under PID 1.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const BIN = fileURLToPath(new URL("../../src/cli/bin.js", import.meta.url));
const PLAN = `name: slow
seeds: [1, 2]
timeout_s: 120
base:
  flags:
    model: meta-llama/llama-3.1-8b-instruct
    num-requests: 50000
    log: error
axes:
  - name: n
    flag: num-instances
    values: [1, 2]
`;

/** Live (not zombie) processes of the process group. */
function live(pgid: number): string[] {
  const r = spawnSync("ps", ["-o", "pid=,stat=", "-g", String(pgid)], { encoding: "utf8" });
  return r.stdout
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "" && !/\sZ/.test(l));
}

async function until(cond: () => boolean, ms: number): Promise<boolean> {
  const t0 = Date.now();
  while (Date.now() - t0 < ms) {
    if (cond()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return cond();
}

for (const signal of ["SIGTERM", "SIGKILL"] as const) {
  test(`${signal} to blis sweep ends its pool worker too`, { timeout: 60_000 }, async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "blis-pool-"));
    try {
      fs.writeFileSync(path.join(dir, "plan.yaml"), PLAN);
      const child = spawn(
        process.execPath,
        [BIN, "sweep", path.join(dir, "plan.yaml"), "--jobs", "1", "--no-progress"],
        {
          detached: true,
          stdio: "ignore",
        },
      );
      const pgid = child.pid!;
      assert.ok(await until(() => live(pgid).length >= 2, 20_000), "the pool worker started");
      const exited = new Promise((r) => child.once("exit", r));
      process.kill(pgid, signal);
      await exited;
      assert.ok(await until(() => live(pgid).length === 0, 5_000), `still running: ${live(pgid).join(", ")}`);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
}
