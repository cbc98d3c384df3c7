// Worker entry (tinypool, one child process per worker): runs one simulation exactly like `blis run` and returns its
// stdout, captured stderr lines and structured metrics. Compiled to dist/src/experiment/worker.js.

import { simulate } from "../sim/simulate.js";
import { renderStdout } from "../sim/renderStdout.js";
import type { RunInput } from "../config/runOptions.js";
import type { SimulationMetrics } from "../metrics/collect.js";
import { ConstructionError, InvariantError, UserError } from "../util/errors.js";
import { Logger, parseLogLevel } from "../util/log.js";
import { RUN_DEFAULTS } from "../config/runOptions.js";
import { bindToParent, runEnded, runStarted } from "./poolChild.js";

export interface WorkerTask {
  input: RunInput;
}

export interface WorkerResult {
  /** Exit status `blis run` would have: 0 ok, 1 user error, 2 panic / internal error. */
  exitCode: number;
  /** The error line `blis run` would print on stderr (without the `error: ` prefix), or "". */
  error: string;
  stdout: string;
  /** Log lines (at the run's --log level, default warn), capped. */
  stderr: string[];
  metrics: SimulationMetrics | null;
}

const MAX_STDERR_LINES = 200;

bindToParent();

export default async function runOne(task: WorkerTask): Promise<WorkerResult> {
  runStarted();
  try {
    return await simulateOne(task);
  } finally {
    runEnded();
  }
}

async function simulateOne(task: WorkerTask): Promise<WorkerResult> {
  const stderr: string[] = [];
  let dropped = 0;
  const sink = (line: string): void => {
    if (stderr.length < MAX_STDERR_LINES) stderr.push(line);
    else dropped++;
  };
  const finish = (r: Omit<WorkerResult, "stderr">): WorkerResult => {
    if (dropped > 0) stderr.push(`… ${dropped} more log lines`);
    return { ...r, stderr };
  };
  let stdout = "";
  let metrics: SimulationMetrics | null = null;
  try {
    const level = parseLogLevel(task.input.log ?? RUN_DEFAULTS.log);
    if (level === null) throw new UserError(`Invalid log level: ${task.input.log}`);
    const res = await simulate(task.input, { logger: new Logger(level, sink) });
    metrics = res.metrics;
    const out = renderStdout(res);
    stdout = out.head;
    if (out.fitnessError !== null) throw out.fitnessError;
    stdout += out.tail;
    return finish({ exitCode: 0, error: "", stdout, metrics });
  } catch (e) {
    const [exitCode, error] = classify(e);
    return finish({ exitCode, error, stdout, metrics });
  }
}

/** Same mapping as the CLI's reportError (docs/behavior.md "Validation order and exit status"). */
function classify(e: unknown): [number, string] {
  if (e instanceof UserError) return [1, `error: ${e.message}`];
  if (e instanceof ConstructionError) return [2, `panic: ${e.message}`];
  if (e instanceof InvariantError) return [2, `internal error: simulator invariant broken: ${e.message}`];
  const msg = e instanceof Error ? e.message : String(e);
  return [2, `internal error: ${msg.split("\n")[0]}`];
}
