// The playground's sources (web/) are bundled by esbuild, which does not check types: both of its
// configurations are type-checked here (as `npm run build:web` does), so `npm test` catches errors.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import path from "node:path";
import { createRequire } from "node:module";

const ROOT = path.resolve(import.meta.dirname, "..", "..", "..");
const TSC = createRequire(import.meta.url).resolve("typescript/bin/tsc");

function tsc(config: string): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [TSC, "-p", config], { cwd: ROOT });
    let out = "";
    p.stdout.on("data", (d: Buffer) => (out += d.toString()));
    p.stderr.on("data", (d: Buffer) => (out += d.toString()));
    p.on("close", (code) => resolve({ code, out }));
  });
}

test("the playground page and its worker type-check", { timeout: 180_000 }, async () => {
  const [page, worker] = await Promise.all([tsc("web/tsconfig.page.json"), tsc("web/tsconfig.worker.json")]);
  assert.equal(page.code, 0, page.out);
  assert.equal(worker.code, 0, worker.out);
});
