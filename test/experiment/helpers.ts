import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
/** Repository root (this file runs from dist/test/experiment). */
export const ROOT = path.resolve(here, "../../..");
export const BIN = path.join(ROOT, "dist/src/cli/bin.js");
export const MODEL = "meta-llama/llama-3.1-8b-instruct";

export function tmpDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `blis-${prefix}-`));
}

export function writePlan(dir: string, name: string, text: string): string {
  const p = path.join(dir, name);
  fs.writeFileSync(p, text);
  return p;
}

export interface Proc {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `blis <args>` in a child process (non-TTY stderr). */
export function blis(args: string[], cwd = ROOT): Proc {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd, encoding: "utf8", timeout: 120_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

export function blisAsync(args: string[], cwd = ROOT): Promise<Proc> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

export function readLines(file: string): string[] {
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "");
}

export function records(dir: string): Record<string, unknown>[] {
  return readLines(path.join(dir, "runs.jsonl")).map((l) => JSON.parse(l) as Record<string, unknown>);
}
