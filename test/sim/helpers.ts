// Shared fixtures for the configuration-pipeline stage tests: default options, a capturing logger,
// the message a stage throws, and the error line the CLI prints for the same input.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { RunInput, RunOptions } from "../../src/config/runOptions.js";
import { parseRunInput } from "../../src/sim/parseOptions.js";
import { UserError } from "../../src/util/errors.js";
import { Logger, silentLogger } from "../../src/util/log.js";
import { cli } from "../helpers/cli.js";
import { QUIET_MODEL } from "../helpers/quietModel.js";

/** Options as stage 1 leaves them: schema defaults plus `input`, with the keys given explicitly. */
export function options(input: RunInput = {}): { o: Readonly<RunOptions>; explicit: Set<string> } {
  const { o, explicit } = parseRunInput({ model: "test-model", ...input }, silentLogger);
  return { o, explicit };
}

/** A logger keeping its lines ("level=... msg=..."). */
export function capture(): { log: Logger; lines: string[] } {
  const lines: string[] = [];
  return { log: new Logger("info", (l) => lines.push(l)), lines };
}

/** The message of the UserError `fn` throws. */
export function userError(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof UserError, `expected a UserError, got ${String(e)}`);
    return e.message;
  }
  assert.fail("no error was thrown");
}

/** Quiet coefficients so a CLI run reaches validation without latency warnings. */
const CLI_BASE = ["run", ...QUIET_MODEL, "--num-requests", "1"];

/** The error line `blis run` prints for these flags, without its "error: " prefix; exit status 1. */
export async function cliError(args: string[]): Promise<string> {
  const res = await cli([...CLI_BASE, ...args]);
  assert.equal(res.code, 1, `${args.join(" ")}: exit status`);
  const last = res.stderr[res.stderr.length - 1] ?? "";
  assert.ok(last.startsWith("error: "), `${args.join(" ")}: ${JSON.stringify(res.stderr)}`);
  return last.slice("error: ".length);
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "blis-stages-"));
process.on("exit", () => fs.rmSync(dir, { recursive: true, force: true }));
let n = 0;

/** Writes a temporary file (policy bundles) and returns its path. */
export function tempFile(text: string, ext = ".yaml"): string {
  const f = path.join(dir, `f${n++}${ext}`);
  fs.writeFileSync(f, text);
  return f;
}
