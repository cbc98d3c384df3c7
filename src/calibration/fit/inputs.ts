// What `fit --data`/`--holdout` accept (docs/calibration.md "Fit"): an experiment id of the
// bundled data set (optionally `#stageN`), an experiments.json (`FILE.json[#ID[#stageN]]`), a
// trace v2 header (its data CSV beside it, same name), or a per-request CSV.

import fs from "node:fs";
import path from "node:path";
import type { RunInput } from "../../config/runOptions.js";
import { UserError } from "../../util/errors.js";
import { loadTraceV2, type TraceV2 } from "../../workload/index.js";
import {
  BUNDLED_EXPERIMENTS,
  experimentFromEntry,
  readExperimentsFile,
  stageOf,
  unsupportedReason,
  type ExperimentEntry,
  type FitExperiment,
} from "../experiments.js";
import { measuredCsvKind, traceFromEngineCsv, traceFromInferencePerfCsv } from "../measuredCsv.js";
import { DATA_FILE_LIMIT, InputFileError, readFailure, readInputFile } from "../../util/inputFile.js";

export interface InputContext {
  /** Deployment of trace and CSV inputs (the command's run flags). */
  run: RunInput;
  seed: number;
  flag: string;
  /** Notes on entries left out (whole-file inputs). */
  skipped: string[];
}

function splitStage(spec: string, flag: string): { base: string; stage: number | null } {
  const m = /^(.*)#stage(\d+)$/.exec(spec);
  if (m === null) return { base: spec, stage: null };
  const s = Number(m[2]);
  if (!Number.isInteger(s)) throw new UserError(`${flag} ${spec}: bad stage`);
  return { base: m[1]!, stage: s };
}

function fromEntries(file: string, id: string | null, stage: number | null, ctx: InputContext): FitExperiment[] {
  const all = readExperimentsFile(file);
  const dir = path.dirname(file);
  const pick = (e: ExperimentEntry): FitExperiment => {
    let x = experimentFromEntry(e, all, dir, ctx.seed);
    // A bundled deployment runs the latency model being fitted (kernels or the default trained-physics).
    if (ctx.run.latencyModel === "kernels") x = { ...x, run: { ...x.run, latencyModel: "kernels" } };
    return stage === null ? x : stageOf(x, e, stage);
  };
  if (id !== null) {
    const e = all.find((x) => x.id === id);
    if (e === undefined) throw new UserError(`${ctx.flag} ${id}: no experiment with this id in ${file}`);
    return [pick(e)];
  }
  const out: FitExperiment[] = [];
  for (const e of all) {
    const why = unsupportedReason(e);
    if (why !== null) {
      ctx.skipped.push(`${e.id}: ${why}`);
      continue;
    }
    out.push(pick(e));
  }
  return out;
}

function needModel(spec: string, ctx: InputContext): RunInput {
  if (ctx.run.model === undefined || ctx.run.model === "") {
    throw new UserError(
      `${ctx.flag} ${spec}: a trace or CSV input needs the deployment's --model (and --hardware, --tp, ...)`,
    );
  }
  return { ...ctx.run, seed: ctx.seed };
}

/** A measured run of the user's deployment (trace or CSV): every request is scored. */
function measuredRun(id: string, trace: TraceV2, spec: string, ctx: InputContext): FitExperiment {
  return {
    id,
    model: ctx.run.model ?? "",
    run: needModel(spec, ctx),
    trace,
    target: { kind: "requests" },
    stages: [],
    role: null,
  };
}

/** Resolves one --data/--holdout value. */
export function resolveInput(spec: string, ctx: InputContext): FitExperiment[] {
  const { base, stage } = splitStage(spec, ctx.flag);
  const hash = base.indexOf("#");
  if (hash >= 0 && base.slice(0, hash).endsWith(".json")) {
    return fromEntries(base.slice(0, hash), base.slice(hash + 1), stage, ctx);
  }
  if (base.endsWith(".json")) {
    if (!fs.existsSync(base)) throw new UserError(`${ctx.flag} ${base}: no such file`);
    return fromEntries(base, null, stage, ctx);
  }
  if (/\.ya?ml$/i.test(base)) {
    const data = base.replace(/\.ya?ml$/i, ".csv");
    if (!fs.existsSync(base)) throw new UserError(`${ctx.flag} ${base}: no such file`);
    if (!fs.existsSync(data))
      throw new UserError(`${ctx.flag} ${base}: the trace data ${data} is missing (it must sit beside the header)`);
    const trace = loadTraceV2(base, data);
    return [measuredRun(path.basename(base).replace(/\.ya?ml$/i, ""), trace, spec, ctx)];
  }
  if (base.endsWith(".csv")) {
    let text: string;
    try {
      text = readInputFile(base, DATA_FILE_LIMIT);
    } catch (e) {
      throw new UserError(
        `${ctx.flag} ${base}: ${(e as InputFileError).code === "ENOENT" ? "no such file" : readFailure(e)}`,
      );
    }
    const kind = measuredCsvKind(text);
    if (kind === null) {
      throw new UserError(
        `${ctx.flag} ${base}: unknown CSV layout (expected arrival_time_us,input_tokens,output_tokens,ttft_us,e2e_us or an engine log with queued_us/first_token_us/last_token_us)`,
      );
    }
    const trace = kind === "engine" ? traceFromEngineCsv(text, base) : traceFromInferencePerfCsv(text, base);
    return [measuredRun(path.basename(base, ".csv"), trace, spec, ctx)];
  }
  return fromEntries(BUNDLED_EXPERIMENTS, base, stage, ctx);
}

/** Resolves every value of one flag, recording each experiment's source for worker processes. */
export function loadInputs(specs: readonly string[], ctx: InputContext): FitExperiment[] {
  return specs.flatMap((spec) =>
    resolveInput(spec, ctx).map((x, index) => ({
      ...x,
      source: { spec, flag: ctx.flag, index, run: ctx.run, seed: ctx.seed },
    })),
  );
}
