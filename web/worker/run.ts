// Runs and checks in the worker: parameters → simulate() (the library form of `blis run`) →
// a summary for the page, or the CLI's error messages by field.

import { simulate, type SimulationResult } from "../../src/sim/simulate.js";
import { parseRunInput } from "../../src/sim/parseOptions.js";
import { Logger, parseLogLevel } from "../../src/util/log.js";
import { ConstructionError, InvariantError, UserError } from "../../src/util/errors.js";
import {
  specFromDistribution,
  specFromPreset,
  readPresetsFromDefaults,
  serializeWorkloadSpec,
} from "../../src/workload/index.js";
import type { RunInput } from "../../src/config/runOptions.js";
import type { Checked, FieldError, Params, Progress, RunSummary } from "../shared/protocol.js";
import { commandLine, fieldOf, parseParams } from "./params.js";
import { summarize } from "./summary.js";

/** Thrown by the progress hook to stop a check once validation is over and the run has begun. */
class Validated extends Error {}

/** The first error of a run as the CLI prints it (docs/behavior.md "Validation order and exit status"). */
function errorLine(e: unknown): string {
  if (e instanceof UserError) return `error: ${e.message}`;
  const msg = e instanceof Error ? e.message : String(e);
  if (e instanceof ConstructionError) return `panic: ${msg}`;
  if (e instanceof InvariantError) return `internal error: simulator invariant broken: ${msg}`;
  return `internal error: ${msg.split("\n")[0]}`;
}

export class RunFailed extends Error {
  constructor(readonly errors: FieldError[]) {
    super(errors.map((e) => e.message).join("\n"));
  }
}

interface Prepared {
  input: RunInput;
  logger: Logger;
  log: string[];
}

function prepare(params: Params, mount: (yaml: string | null) => void): Prepared {
  const parsed = parseParams(params);
  if (parsed.errors.length > 0) throw new RunFailed(parsed.errors);
  mount(parsed.specYaml);
  const log: string[] = [];
  const level = parseLogLevel(parsed.input.log ?? "warn");
  if (level === null) throw new RunFailed([{ field: "log", message: `error: Invalid log level: ${parsed.input.log}` }]);
  return { input: parsed.input, logger: new Logger(level, (l) => log.push(l)), log };
}

async function simulateOrFail(
  params: Params,
  p: Prepared,
  onProgress: (s: Progress) => void,
  opts: { series: boolean; intervalUs: number },
): Promise<SimulationResult> {
  try {
    return await simulate(p.input, {
      logger: p.logger,
      recordTimeSeries: opts.series,
      hooks: {
        progress: {
          intervalUs: opts.intervalUs,
          onProgress: (s) => {
            const fraction =
              s.requestCap > 0
                ? s.completed / s.requestCap
                : Number.isFinite(s.horizonUs)
                  ? s.clockUs / s.horizonUs
                  : 0;
            onProgress({ fraction: Math.min(1, fraction), completed: s.completed, clockUs: s.clockUs });
          },
        },
      },
    });
  } catch (e) {
    if (e instanceof Validated) throw e;
    const message = errorLine(e);
    throw new RunFailed([{ field: fieldOf(message, params), message }]);
  }
}

export async function runParams(
  params: Params,
  detail: "full" | "metrics",
  mount: (yaml: string | null) => void,
  onProgress: (s: Progress) => void,
): Promise<RunSummary> {
  const p = prepare(params, mount);
  const t0 = performance.now();
  const res = await simulateOrFail(params, p, onProgress, { series: detail === "full", intervalUs: 1_000_000 });
  return summarize(res, detail, performance.now() - t0, p.log);
}

/** The workload of the flags written as a spec (distribution and preset modes), or "". */
function workloadYaml(input: RunInput, specYaml: string | null): string {
  if (specYaml !== null) return specYaml;
  try {
    const { o } = parseRunInput(input, undefined);
    const seed = BigInt.asIntN(64, BigInt(o.seed));
    if (o.concurrency > 0 || o.workload === "traces") return "";
    if (o.workload === "distribution" || o.workload === "") {
      return serializeWorkloadSpec(specFromDistribution({ ...o, seed }));
    }
    return serializeWorkloadSpec(
      specFromPreset(o.workload, readPresetsFromDefaults(o.defaultsFilepath), o.rate, o.numRequests, seed),
    );
  } catch {
    return "";
  }
}

/**
 * Validates parameters as a run would, without running it: the simulation starts and is stopped
 * at its first progress point, so every check `blis run` makes before simulating has been made.
 */
export async function checkParams(params: Params, mount: (yaml: string | null) => void): Promise<Checked> {
  const command = commandLine(params);
  let p: Prepared;
  try {
    p = prepare(params, mount);
  } catch (e) {
    if (e instanceof RunFailed) return { errors: e.errors, command, workloadYaml: "" };
    throw e;
  }
  const yaml = workloadYaml(p.input, parseParams(params).specYaml);
  try {
    const stop = (): void => {
      throw new Validated();
    };
    await simulateOrFail(params, p, stop, { series: false, intervalUs: 1 });
  } catch (e) {
    if (e instanceof RunFailed) return { errors: e.errors, command, workloadYaml: yaml };
    if (!(e instanceof Validated)) throw e;
  }
  return { errors: [], command, workloadYaml: yaml };
}
