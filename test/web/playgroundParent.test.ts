// `npx blis playground` stopped by killing npx (SIGTERM to npx alone), or by a signal to the whole
// process group: the server does not serve on under PID 1. Real npx, with the package installed
// in a scratch project the way a user's project holds it.

import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ROOT } from "./pageDriver.js";

let project: string;

before(() => {
  project = fs.mkdtempSync(path.join(os.tmpdir(), "blis-npx-"));
  fs.writeFileSync(path.join(project, "package.json"), '{ "name": "scratch", "version": "1.0.0", "private": true }\n');
  fs.mkdirSync(path.join(project, "node_modules", ".bin"), { recursive: true });
  fs.symlinkSync(ROOT, path.join(project, "node_modules", "blis-ts"));
  fs.symlinkSync(
    path.join("..", "blis-ts", "dist", "src", "cli", "bin.js"),
    path.join(project, "node_modules", ".bin", "blis"),
  );
});

after(() => fs.rmSync(project, { recursive: true, force: true }));

/** Pids of the live (not zombie) processes whose command line runs `blis playground` in this project. */
function servers(): number[] {
  const r = spawnSync("ps", ["-eo", "pid=,stat=,args="], { encoding: "utf8" });
  return r.stdout
    .split("\n")
    .map((l) => l.trim().split(/\s+/))
    .filter(
      (f) =>
        f.length > 2 &&
        !f[1]!.startsWith("Z") &&
        f.slice(2).join(" ").includes(`${project}/node_modules/.bin/blis playground`),
    )
    .map((f) => Number(f[0]));
}

async function until(cond: () => boolean, ms: number): Promise<boolean> {
  const t0 = Date.now();
  while (Date.now() - t0 < ms) {
    if (cond()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return cond();
}

const CASES: [string, NodeJS.Signals, boolean][] = [
  ["SIGTERM to npx alone", "SIGTERM", false],
  ["SIGTERM to its process group", "SIGTERM", true],
  ["SIGINT to its process group (Ctrl-C)", "SIGINT", true],
];

for (const [what, signal, toGroup] of CASES) {
  test(`npx blis playground, ${what}: the server ends too`, { timeout: 60_000 }, async () => {
    const npx = spawn("npx", ["--no", "blis", "playground", "--port", "0"], {
      cwd: project,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    npx.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    npx.stderr.resume();
    const exited = new Promise((r) => npx.once("exit", r));
    try {
      assert.ok(
        await until(() => /^Playground: http:\/\/127\.0\.0\.1:\d+\//m.test(stdout), 30_000),
        `no address printed: ${stdout}`,
      );
      assert.equal(servers().length, 1, "the server runs");
      process.kill(toGroup ? -npx.pid! : npx.pid!, signal);
      await exited;
      assert.ok(await until(() => servers().length === 0, 5000), `the server still runs: ${servers().join(", ")}`);
    } finally {
      for (const pid of servers()) process.kill(pid, "SIGKILL");
      try {
        process.kill(-npx.pid!, "SIGKILL");
      } catch {
        // already gone
      }
    }
  });
}
