import { CommanderError } from "commander";
import { PlanError } from "../experiment/errors.js";
import { ConstructionError, InvariantError, UserError } from "../util/errors.js";

export interface CliIo {
  stdout(text: string): void;
  stderrLine(line: string): void;
  /** The real stderr, for progress bars (absent in-process: progress then goes through stderrLine). */
  stderrStream?: NodeJS.WriteStream;
}

export const processIo: CliIo = {
  stdout: (t) => {
    process.stdout.write(t);
  },
  stderrLine: (l) => {
    process.stderr.write(l + "\n");
  },
  stderrStream: process.stderr,
};

/**
 * Maps an error to one stderr line and an exit status (docs/behavior.md
 * "Validation order and exit status").
 */
export function reportError(e: unknown, io: CliIo): number {
  if (e instanceof CommanderError) return e.exitCode === 0 ? 0 : 1;
  if (e instanceof UserError) {
    io.stderrLine(`error: ${e.message}`);
    return 1;
  }
  if (e instanceof PlanError) {
    io.stderrLine(`error: ${e.message}`);
    return e.exitCode;
  }
  if (e instanceof ConstructionError) {
    io.stderrLine(`panic: ${e.message}`);
    return 2;
  }
  if (e instanceof InvariantError) {
    io.stderrLine(`internal error: simulator invariant broken: ${e.message}`);
    return 2;
  }
  const msg = e instanceof Error ? e.message : String(e);
  io.stderrLine(`internal error: ${msg.split("\n")[0]}`);
  if (process.env["BLIS_DEBUG"] && e instanceof Error && e.stack) io.stderrLine(e.stack);
  return 2;
}
