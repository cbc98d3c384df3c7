// Experiments of the calibration data set (data/calibration/experiments.json; docs/calibration.md
// "Data") as fit inputs: the deployment's run options, the requests to replay and what was measured.

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { z } from "zod";
import { BUNDLED_DATA_DIR } from "../util/paths.js";
import type { RunInput } from "../config/runOptions.js";
import { UserError } from "../util/errors.js";
import { Rng } from "../engine/rng.js";
import { emptyTraceRecord, newTraceHeader, type TraceRecord, type TraceV2 } from "../workload/index.js";
import { PROMPT_CYCLE, setGroupPrefixes, traceFromInferencePerfCsv } from "./measuredCsv.js";
import { DATA_FILE_LIMIT, InputFileError, readFailure, readInputFile } from "../util/inputFile.js";

const Means = z.object({ mean: z.number().nullable() }).passthrough();
const Metrics = z
  .object({
    ttft_ms: Means,
    e2e_ms: Means,
    itl_ms: z
      .object({ mean: z.number().nullable(), mean_server_output_len: z.number().nullable().optional() })
      .passthrough(),
  })
  .passthrough();
const Stage = z
  .object({ index: z.number(), rate_rps: z.number(), duration_s: z.number(), requests: z.number() })
  .passthrough();
export const ExperimentSchema = z
  .object({
    id: z.string(),
    model: z
      .object({
        hf_id: z.string(),
        simulator_id: z.string().nullable(),
        model_config: z.string().nullable(),
        model_config_note: z.string().optional(),
        precision: z.string(),
      })
      .passthrough(),
    gpu: z.string(),
    tp: z.number().int(),
    dp: z.number().int(),
    engine: z
      .object({
        max_num_seqs: z.number(),
        max_num_batched_tokens: z.number(),
        max_model_len: z.number().nullable(),
        block_size: z.number().nullable(),
        kv_blocks_gpu: z.number().nullable(),
        gpu_memory_utilization: z.number(),
      })
      .passthrough(),
    workload: z
      .object({
        profile: z.string(),
        stages: z
          .array(Stage)
          .nullable()
          .transform((v) => v ?? []),
        system_prompt_len: z.number().optional(),
        output_len: z.number().optional(),
        input_tokens_measured: z.object({ mean: z.number() }).passthrough().nullable().optional(),
        trace: z.string().nullable(),
      })
      .passthrough(),
    measured: z.object({ whole_run: Metrics, stages: z.array(Metrics).nullable().optional() }).passthrough(),
    blis_trainval_role: z.string().nullable(),
  })
  .passthrough();
export type ExperimentEntry = z.infer<typeof ExperimentSchema>;

/** What a fit compares with: every request of the trace, or published means (ms → µs here). */
export type FitTarget = { kind: "requests" } | { kind: "means"; ttft_us: number; e2e_us: number; itl_us: number };

export interface FitExperiment {
  id: string;
  /** Model id as the simulator spells it. */
  model: string;
  run: RunInput;
  trace: TraceV2;
  target: FitTarget;
  /** Only requests arriving in [from, to) µs are scored (the whole run when absent). */
  window?: [number, number];
  /** Arrival windows of the load stages, µs. */
  stages: [number, number][];
  /** Shipped-coefficient role (fit / evaluation-only / null). */
  role: string | null;
  /** How it was loaded (fit/inputs.ts loadInputs): lets a worker process load it again. */
  source?: ExperimentSource;
}

export interface ExperimentSource {
  /** The --data/--holdout value and flag, and the experiment's index among those it names. */
  spec: string;
  flag: string;
  index: number;
  run: RunInput;
  seed: number;
}

export const BUNDLED_EXPERIMENTS = path.join(BUNDLED_DATA_DIR, "calibration", "experiments.json");

export function readExperimentsFile(file: string): ExperimentEntry[] {
  let raw: unknown;
  try {
    raw = JSON.parse(readInputFile(file, DATA_FILE_LIMIT));
  } catch (e) {
    const why = e instanceof InputFileError ? readFailure(e) : (e as Error).message.split("\n")[0];
    throw new UserError(`${file}: ${(e as InputFileError).code === "ENOENT" ? "no such file" : why}`);
  }
  const parsed = z.array(ExperimentSchema).safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new UserError(`${file}: entry ${issue.path.join(".")}: ${issue.message}`);
  }
  return parsed.data;
}

/** Why an experiment cannot be simulated with the bundled data, or null. */
export function unsupportedReason(e: ExperimentEntry): string | null {
  if (e.gpu !== "H100") return `GPU ${e.gpu} has no entry in the bundled hardware file`;
  if (e.model.model_config === null && figuresOf(e) === null)
    return "no bundled config.json and no architecture figures";
  return null;
}

function figuresOf(e: ExperimentEntry): Record<string, number> | null {
  const k = /(\d+) layers, hidden (\d+), (\d+) heads, (\d+) KV heads, intermediate (\d+), vocab (\d+)/.exec(
    e.model.model_config_note ?? "",
  );
  if (k === null) return null;
  const n = (i: number): number => Number(k[i]);
  return {
    num_hidden_layers: n(1),
    hidden_size: n(2),
    num_attention_heads: n(3),
    num_key_value_heads: n(4),
    intermediate_size: n(5),
    vocab_size: n(6),
  };
}

/** The model config folder: bundled, or a config.json written from the data set's key figures. */
function configFolder(e: ExperimentEntry): string {
  if (e.model.model_config !== null) return path.join(BUNDLED_DATA_DIR, "model_configs", e.model.model_config);
  const figures = figuresOf(e)!;
  const dtype = e.model.precision === "bfloat16" ? "bfloat16" : "float16";
  const dir = path.join(os.tmpdir(), "blis-calibration-configs", e.model.hf_id.replace(/[^A-Za-z0-9._-]/g, "_"));
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, "config.json");
  const text = JSON.stringify({ ...figures, torch_dtype: dtype }, null, 2) + "\n";
  if (!fs.existsSync(file) || readInputFile(file, DATA_FILE_LIMIT) !== text) fs.writeFileSync(file, text);
  return dir;
}

/** Stage arrival windows in µs; the last is open-ended. */
function stageWindows(e: ExperimentEntry): [number, number][] {
  let t = 0;
  return e.workload.stages.map((s, i, all) => {
    const w: [number, number] = [t * 1e6, i === all.length - 1 ? Infinity : (t + s.duration_s) * 1e6];
    t += s.duration_s;
    return w;
  });
}

/** Mean measured prompt length per profile over the traced runs (aggregate-only runs lack theirs). */
function profilePromptLength(all: readonly ExperimentEntry[], profile: string): number {
  const xs = all
    .filter((x) => x.workload.profile === profile && x.workload.input_tokens_measured)
    .map((x) => x.workload.input_tokens_measured!.mean);
  if (xs.length === 0) throw new UserError(`no traced run of profile ${profile} gives a prompt length`);
  return Math.round(xs.reduce((a, b) => a + b, 0) / xs.length);
}

/** Poisson arrivals with the published count in each stage, constant lengths, the 100-prompt cycle. */
function syntheticTrace(e: ExperimentEntry, promptLen: number, seed: number): TraceV2 {
  const rng = new Rng(BigInt(seed));
  const out = e.workload.output_len ?? 0;
  const times: number[] = [];
  let start = 0;
  for (const s of e.workload.stages) {
    const ts = Array.from({ length: s.requests }, () => Math.floor((start + rng.float64() * s.duration_s) * 1e6));
    ts.sort((a, b) => a - b);
    times.push(...ts);
    start += s.duration_s;
  }
  const recs: TraceRecord[] = times.map((t, k) => ({
    ...emptyTraceRecord(),
    request_id: k,
    prefix_group: `p${k % PROMPT_CYCLE}`,
    streaming: true,
    input_tokens: promptLen,
    output_tokens: out,
    arrival_time_us: t,
    send_time_us: t,
  }));
  setGroupPrefixes(recs);
  return { header: newTraceHeader("generated"), layout: "v3", optionalColumns: [], records: recs };
}

/** Builds the fit experiment of a data-set entry; `stage` restricts requests and scores to that stage. */
export function experimentFromEntry(
  e: ExperimentEntry,
  all: readonly ExperimentEntry[],
  dataDir: string,
  seed = 42,
): FitExperiment {
  const why = unsupportedReason(e);
  if (why !== null) throw new UserError(`experiment ${e.id}: ${why}`);
  const model = (e.model.simulator_id ?? e.model.hf_id).toLowerCase();
  const eng = e.engine;
  const run: RunInput = {
    model,
    latencyModel: "trained-physics",
    hardware: e.gpu,
    tp: e.tp,
    maxNumRunningReqs: eng.max_num_seqs,
    maxNumScheduledTokens: eng.max_num_batched_tokens,
    blockSizeInTokens: eng.block_size ?? 16,
    gpuMemoryUtilization: eng.gpu_memory_utilization,
    modelConfigFolder: configFolder(e),
    seed,
  };
  if (e.dp > 1) run.dp = e.dp;
  if (eng.kv_blocks_gpu !== null) run.totalKvBlocks = eng.kv_blocks_gpu;
  if (eng.max_model_len !== null) run.maxModelLen = eng.max_model_len;
  let trace: TraceV2;
  let target: FitTarget;
  if (e.workload.trace !== null) {
    const file = path.join(dataDir, e.workload.trace);
    trace = traceFromInferencePerfCsv(readInputFile(file, DATA_FILE_LIMIT), file);
    target = { kind: "requests" };
  } else {
    trace = syntheticTrace(e, profilePromptLength(all, e.workload.profile), seed);
    target = meansOf(e.measured.whole_run, e.id);
  }
  return { id: e.id, model, run, trace, target, stages: stageWindows(e), role: e.blis_trainval_role };
}

export function meansOf(m: z.infer<typeof Metrics>, id: string): FitTarget {
  const itl = m.itl_ms.mean_server_output_len ?? m.itl_ms.mean;
  if (m.ttft_ms.mean === null || m.e2e_ms.mean === null || itl === null)
    throw new UserError(`experiment ${id}: measured means missing`);
  return { kind: "means", ttft_us: m.ttft_ms.mean * 1000, e2e_us: m.e2e_ms.mean * 1000, itl_us: itl * 1000 };
}

/**
 * The same experiment restricted to load stage `s`: requests up to the end of that stage are
 * replayed (the earlier stages warm the cache and queue), and only stage `s` is scored.
 */
export function stageOf(x: FitExperiment, entry: ExperimentEntry, s: number, replayAll = false): FitExperiment {
  const w = x.stages[s];
  if (w === undefined) throw new UserError(`experiment ${x.id} has no stage ${s}`);
  const records = replayAll ? x.trace.records : x.trace.records.filter((r) => r.arrival_time_us < w[1]);
  const stageMetrics = entry.measured.stages?.[s];
  const target =
    x.target.kind === "requests" ? x.target : stageMetrics !== undefined ? meansOf(stageMetrics, x.id) : x.target;
  return { ...x, id: `${x.id}#stage${s}`, trace: { ...x.trace, records }, target, window: w };
}
