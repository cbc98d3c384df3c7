// A write to stdout that fails (a full disk; here /dev/full) loses the output: the command says so
// in one stderr line and exits 1. A reader that goes away (a closed pipe) is still a quiet exit 0.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import { fileURLToPath } from "node:url";

const BIN = fileURLToPath(new URL("../../src/cli/bin.js", import.meta.url));
const M = ["--model", "meta-llama/llama-3.1-8b-instruct"];
const hasFull = fs.existsSync("/dev/full");

function toFull(args: string[]): { status: number | null; stderr: string } {
  const fd = fs.openSync("/dev/full", "w");
  try {
    const r = spawnSync(process.execPath, [BIN, ...args], {
      stdio: ["ignore", fd, "pipe"],
      encoding: "utf8",
      timeout: 60_000,
    });
    return { status: r.status, stderr: r.stderr };
  } finally {
    fs.closeSync(fd);
  }
}

for (const args of [
  ["run", ...M, "--num-requests", "5"],
  ["models"],
  ["convert", "preset", "--name", "chatbot"],
  ["--help"],
]) {
  test(`blis ${args.join(" ")} > /dev/full: exit 1 with one line`, { skip: !hasFull && "no /dev/full" }, () => {
    const r = toFull(args);
    assert.equal(r.status, 1, r.stderr);
    assert.deepEqual(
      r.stderr.split("\n").filter((l) => l !== "" && !l.startsWith("level=")),
      ["error: writing to stdout: no space left on device"],
    );
  });
}

test("a closed pipe is not an error", async () => {
  const child = spawn(process.execPath, [BIN, "models"], { stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  child.stdout.once("data", () => child.stdout.destroy());
  const code = await new Promise<number | null>((resolve) => child.on("close", (c) => resolve(c)));
  assert.equal(code, 0);
  assert.doesNotMatch(stderr, /error/);
});
