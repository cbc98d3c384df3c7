#!/usr/bin/env node
// How far are the simulator's predictions from measured vLLM?
//
// Simulates every H100 experiment of data/calibration/experiments.json with each latency backend
// (trained-physics, roofline, blackbox) and compares the simulated E2E, TTFT and ITL means with
// the measured whole-run means (and, for traced runs, with the means over arrivals after 30 s).
// Prints a markdown report on stdout, progress on stderr; `--json FILE` saves the raw numbers.
//
// Run after building:  npm run build && node examples/calibration/accuracy.mjs [--json out.json]
//
// Options:
//   --json FILE        write every number (per experiment, backend and workload modelling) to FILE
//   --only A,B         only experiments whose id contains one of these substrings
//   --backends LIST    comma-separated subset of kernels,trained-physics,roofline,blackbox
//   --seed N           seed of the simulator and of the generated workloads (default 42)
//   --verbose          simulator warnings on stderr
//   --keep-full-repeats  repeat block-aligned prompts exactly instead of giving them a unique
//                      last token (same results since the simulator recomputes the last block
//                      of a fully cached prompt; wrong results with builds before that fix)
//
// Two workload modellings are run for every experiment and backend (see README.md):
//   cycle   (primary)  the measured 100-prompt cycle at token level: request k carries the same
//                      prompt as request k-100, the first 100 prompts form 10 groups of 10 that
//                      share the profile's system prompt. Built here and run through the library's
//                      runCluster with the configuration simulate() resolved.
//   native  (reference) the simulator's own workload paths, as `blis run` users would write them:
//                      traced runs replay a trace v2 (--replay-trace; row k in prefix group
//                      p<k mod 100>, which in trace v2 is a fixed 50-token shared prefix, not the
//                      whole prompt); aggregate-only runs use an `inference_perf` workload spec
//                      (stages at their rates, 10 system prompts x 10 users, single turn).

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parse as parseYaml } from "yaml";
import { simulate, runCluster, workload } from "../../dist/src/index.js";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, "..", "..");
const CAL = path.join(ROOT, "data", "calibration");
const BACKENDS = ["kernels", "trained-physics", "roofline", "blackbox"];
const METRICS = ["e2e", "ttft", "itl"];
const CYCLE = 100; // distinct prompts per cycle (caveat 2 of data/calibration/README.md)
const GROUPS = 10; // system prompts among them
const TOKEN_VOCAB = 128000;

// ------------------------------------------------------------------------------------------------
// Arguments

function parseArgs(argv) {
  const a = { json: "", only: [], backends: BACKENDS, seed: 42, verbose: false, keepFullRepeats: false };
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i];
    const val = () => {
      if (i + 1 >= argv.length) throw new Error(`${k} needs a value`);
      return argv[++i];
    };
    if (k === "--json") a.json = val();
    else if (k === "--only") a.only = val().split(",").filter(Boolean);
    else if (k === "--backends") a.backends = val().split(",").filter(Boolean);
    else if (k === "--seed") a.seed = Number(val());
    else if (k === "--verbose") a.verbose = true;
    else if (k === "--keep-full-repeats") a.keepFullRepeats = true;
    else if (k === "--help" || k === "-h") {
      process.stdout.write(
        fs
          .readFileSync(fileURLToPath(import.meta.url), "utf8")
          .split("\n")
          .slice(1, 19)
          .map((l) => l.replace(/^\/\/ ?/, ""))
          .join("\n") + "\n",
      );
      process.exit(0);
    } else throw new Error(`unknown argument ${k} (try --help)`);
  }
  for (const b of a.backends)
    if (!BACKENDS.includes(b)) throw new Error(`unknown backend ${b}; valid: ${BACKENDS.join(", ")}`);
  if (!Number.isInteger(a.seed)) throw new Error("--seed must be an integer");
  return a;
}

const args = parseArgs(process.argv.slice(2));
const progress = (msg) => process.stderr.write(msg + "\n");

// ------------------------------------------------------------------------------------------------
// Deterministic random numbers (the workload built here; the simulator has its own seeded streams)

function hashString(s) {
  let h = 2166136261 >>> 0;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619) >>> 0;
  return h;
}

/** mulberry32: uniform doubles in [0, 1). */
function makeRng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function randomTokens(rng, n) {
  const a = new Int32Array(n);
  for (let i = 0; i < n; i++) a[i] = Math.floor(rng() * TOKEN_VOCAB);
  return a;
}

// ------------------------------------------------------------------------------------------------
// Experiments and what can be simulated

const experiments = JSON.parse(fs.readFileSync(path.join(CAL, "experiments.json"), "utf8"));
const defaultsYaml = parseYaml(fs.readFileSync(path.join(ROOT, "data", "defaults.yaml"), "utf8"));
const tmpRoot = fs.mkdtempSync(path.join(os.tmpdir(), "blis-accuracy-"));
process.on("exit", () => fs.rmSync(tmpRoot, { recursive: true, force: true }));

/** In-sample for the shipped trained-physics coefficients: `fit` or `evaluation-only`. */
const sampleOf = (e) => (e.blis_trainval_role === null ? "out-of-sample" : "in-sample");

/** Mean measured prompt length of each inference-perf profile over the traced runs (tokens). */
const profileInput = (() => {
  const acc = new Map();
  for (const e of experiments) {
    const m = e.workload.input_tokens_measured;
    if (e.gpu !== "H100" || e.workload.trace === null || !m) continue;
    const a = acc.get(e.workload.profile) ?? [];
    a.push(m.mean);
    acc.set(e.workload.profile, a);
  }
  return new Map([...acc].map(([p, xs]) => [p, Math.round(xs.reduce((s, x) => s + x, 0) / xs.length)]));
})();

/**
 * The model name, config folder and reason to skip (if any) for the analytical backends. A model
 * without a bundled config gets a temporary config.json when the calibration README gives all of
 * its step-time keys (layers, hidden, heads, KV heads, intermediate, vocab; dtype from precision).
 */
function modelSetup(e) {
  const m = e.model;
  const name = (m.simulator_id ?? m.hf_id).toLowerCase();
  if (m.model_config !== null)
    return { name, modelConfigFolder: undefined, configNote: `bundled ${m.model_config}`, skip: null };
  const note = m.model_config_note ?? "";
  const k = /(\d+) layers, hidden (\d+), (\d+) heads, (\d+) KV heads, intermediate (\d+), vocab (\d+)/.exec(note);
  if (k === null)
    return { name, skip: "no bundled config.json and the calibration README gives no architecture figures" };
  if (!e.engine.kv_blocks_gpu)
    return {
      name,
      skip: "README figures lack the keys the KV-capacity model needs and no KV block count was measured",
    };
  const dtype = { fp16: "float16", bfloat16: "bfloat16" }[m.precision];
  if (dtype === undefined) return { name, skip: `precision ${m.precision} not mapped to a dtype` };
  const folder = path.join(tmpRoot, "model-configs", e.model.hf_id.replace(/[^A-Za-z0-9._-]/g, "_"));
  fs.mkdirSync(folder, { recursive: true });
  const cfg = {
    _comment: `written by examples/calibration/accuracy.mjs from the key figures in data/calibration (${e.id})`,
    num_hidden_layers: +k[1],
    hidden_size: +k[2],
    num_attention_heads: +k[3],
    num_key_value_heads: +k[4],
    intermediate_size: +k[5],
    vocab_size: +k[6],
    torch_dtype: dtype,
  };
  fs.writeFileSync(path.join(folder, "config.json"), JSON.stringify(cfg, null, 2) + "\n");
  return { name, modelConfigFolder: folder, configNote: "config.json written from the README key figures", skip: null };
}

/** Blackbox coefficients exist in data/defaults.yaml for (model id, GPU, TP)? */
function blackboxAvailable(name, e) {
  return (defaultsYaml.models ?? []).some((m) => m.id === name && m.GPU === e.gpu && m.tensor_parallelism === e.tp);
}

// ------------------------------------------------------------------------------------------------
// Workloads

/** Rows {arrival (µs), L (prompt tokens), O (output tokens)} of a traced experiment. */
function readTrace(e) {
  const text = fs.readFileSync(path.join(CAL, e.workload.trace), "utf8");
  const lines = text.split("\n").filter((l) => l.trim() !== "");
  const head = lines[0].split(",");
  const col = (n) => head.indexOf(n);
  const [ia, ii, io] = [col("arrival_time_us"), col("input_tokens"), col("output_tokens")];
  return lines.slice(1).map((l) => {
    const f = l.split(",");
    return { arrival: Number(f[ia]), L: Number(f[ii]), O: Number(f[io]) };
  });
}

/**
 * Per-stage Poisson arrivals with constant lengths: exactly stage.requests arrivals inside each
 * stage's window (the published per-stage counts), i.e. a Poisson process conditioned on its
 * count, which is that many uniform arrival times in the window, sorted.
 */
function poissonRows(e, L, O, rng) {
  const rows = [];
  let start = 0;
  for (const s of e.workload.stages) {
    const times = Array.from({ length: s.requests }, () => (start + rng() * s.duration_s) * 1e6);
    times.sort((a, b) => a - b);
    for (const t of times) rows.push({ arrival: Math.floor(t), L, O });
    start += s.duration_s;
  }
  return rows;
}

/** Trace v2 (header YAML + 22-column CSV) in the temporary folder; row k in prefix group p<k mod 100>. */
function writeTraceV2(e, rows) {
  const dir = path.join(tmpRoot, "traces");
  fs.mkdirSync(dir, { recursive: true });
  const header = path.join(dir, `${e.id}.yaml`);
  const data = path.join(dir, `${e.id}.csv`);
  fs.writeFileSync(
    header,
    [
      "trace_version: 2",
      "time_unit: microseconds",
      "mode: real",
      "warm_up_requests: 0",
      "server:",
      "  type: vllm",
      `  model: ${e.model.hf_id}`,
      `  tensor_parallel: ${e.tp}`,
      `  max_num_seqs: ${e.engine.max_num_seqs}`,
      `  block_size: ${e.engine.block_size}`,
      `  gpu_memory_utilization: ${e.engine.gpu_memory_utilization}`,
      `  max_model_len: ${e.engine.max_model_len ?? 0}`,
      "",
    ].join("\n"),
  );
  const measured = readTraceTimes(e);
  const out = [workload.TRACE_V2_COLUMNS.join(",")];
  rows.forEach((r, k) => {
    // The replay loader prepends a 50-token group prefix on top of input_tokens.
    const suffix = r.L - 50;
    const m = measured[k];
    out.push(
      [
        k,
        "inference-perf",
        "",
        "",
        "",
        0,
        `p${k % CYCLE}`,
        "true",
        suffix,
        r.O,
        suffix,
        0,
        0,
        0,
        0,
        r.arrival,
        r.arrival,
        Math.round(r.arrival + m.ttft),
        Math.round(r.arrival + m.e2e),
        r.O,
        "ok",
        "",
      ].join(","),
    );
  });
  fs.writeFileSync(data, out.join("\n") + "\n");
  return { header, data };
}

function readTraceTimes(e) {
  const lines = fs
    .readFileSync(path.join(CAL, e.workload.trace), "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "");
  const head = lines[0].split(",");
  const [it, ie] = [head.indexOf("ttft_us"), head.indexOf("e2e_us")];
  return lines.slice(1).map((l) => {
    const f = l.split(",");
    return { ttft: Number(f[it]), e2e: Number(f[ie]) };
  });
}

/** inference_perf workload spec for an aggregate-only experiment (the simulator's native path). */
function inferencePerfSpec(e, L, seed) {
  const w = e.workload;
  return {
    version: "2",
    seed,
    inference_perf: {
      stages: w.stages.map((s) => ({ rate: s.rate_rps, duration: s.duration_s })),
      shared_prefix: {
        num_unique_system_prompts: w.prefix_groups_as_used.num_groups,
        num_users_per_system_prompt: w.prefix_groups_as_used.num_prompts_per_group,
        system_prompt_len: w.system_prompt_len,
        question_len: L - w.system_prompt_len,
        output_len: w.output_len,
        enable_multi_turn_chat: false,
      },
    },
  };
}

/**
 * The 100-prompt cycle at token level, generated lazily in arrival order. Row k repeats the prompt
 * of row k-100 (or, when the trace's send order swapped two rows, of the row within ±3 of k-100
 * with the same length); other prompts are the group's system prompt followed by fresh tokens.
 * A prompt whose length is a multiple of the block size ends in a token used by no other prompt
 * of the run, so each repeat misses on its last block, as in vLLM, which caps a cache hit at
 * prompt length - 1 and so recomputes that block. The simulator now does the same for a fully
 * cached prompt, but earlier builds admitted one with no work and it never finished (README.md,
 * "Simulator issues"); the unique token keeps the results right on any build.
 */
class CycleSource {
  constructor(rows, sysLen, blockSize, rng) {
    this.rows = rows;
    this.blockSize = blockSize;
    this.rng = rng;
    this.i = 0;
    this.stats = { repeats: 0, fresh: 0, lastTokenChanged: 0 };
    this.nonce = 0;
    this.prompts = new Map();
    // Slot s of the cycle holds prompt perm[s]; prompt p belongs to system-prompt group p mod 10.
    const perm = Array.from({ length: CYCLE }, (_, j) => j);
    for (let j = CYCLE - 1; j > 0; j--) {
      const r = Math.floor(rng() * (j + 1));
      [perm[j], perm[r]] = [perm[r], perm[j]];
    }
    this.groupOfSlot = perm.map((p) => p % GROUPS);
    this.system = Array.from({ length: GROUPS }, () => randomTokens(rng, sysLen));
  }
  get produced() {
    return this.i;
  }
  promptFor(k, L) {
    if (k >= CYCLE) {
      for (const d of [0, -1, 1, -2, 2, -3, 3]) {
        const j = k - CYCLE + d;
        if (j < 0 || j >= k) continue;
        const prev = this.prompts.get(j);
        if (prev !== undefined && prev.length === L && !prev.claimed) {
          prev.claimed = true;
          this.stats.repeats++;
          const p = prev.tokens.slice();
          if (this.needsNonce(L)) {
            p[L - 1] = this.nextNonce();
            this.stats.lastTokenChanged++;
          }
          return p;
        }
      }
    }
    this.stats.fresh++;
    const p = randomTokens(this.rng, L);
    const sys = this.system[this.groupOfSlot[k % CYCLE]];
    p.set(sys.subarray(0, Math.min(sys.length, L - 1)), 0);
    if (this.needsNonce(L)) p[L - 1] = this.nextNonce();
    return p;
  }
  needsNonce(L) {
    return L % this.blockSize === 0 && !args.keepFullRepeats;
  }
  /** A last token no other prompt of this run has used: no two versions of a prompt can coincide. */
  nextNonce() {
    if (this.nonce >= TOKEN_VOCAB) throw new Error("more than 128000 block-aligned prompts: nonces would repeat");
    return this.nonce++;
  }
  next() {
    if (this.i >= this.rows.length) return null;
    const k = this.i++;
    const r = this.rows[k];
    const prompt = this.promptFor(k, r.L);
    this.prompts.set(k, { tokens: prompt, length: r.L, claimed: false });
    this.prompts.delete(k - CYCLE - 4);
    const out = randomTokens(this.rng, r.O);
    return workload.makeRequest(`request_${k}`, r.arrival, prompt, out, { streaming: true });
  }
}

// ------------------------------------------------------------------------------------------------
// Metrics

const mean = (xs) => (xs.length === 0 ? NaN : xs.reduce((s, x) => s + x, 0) / xs.length);
const median = (xs) => {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const ape = (sim, meas) =>
  Number.isFinite(sim) && Number.isFinite(meas) && meas !== 0 ? (Math.abs(sim - meas) / meas) * 100 : NaN;

/** Whole-run, after-30 s and per-stage means from a run's request ledger (ms). */
function summarizeRun(run, e) {
  const c = run.metrics.cluster;
  const l = run.ledger;
  // Stage i covers [sum of earlier durations, + its duration) by arrival; the last is open-ended.
  let start = 0;
  const windows = e.workload.stages.map((s, i, all) => {
    const w = [start, i === all.length - 1 ? null : start + s.duration_s];
    start += s.duration_s;
    return w;
  });
  const acc = () => ({ ttft: [], e2e: [], itl: [] });
  const after30 = acc();
  const stages = windows.map(acc);
  let nanCount = 0;
  for (let i = 0; i < l.size; i++) {
    if ((l.flags[i] & 2) === 0) continue; // not completed
    const t = l.arrival[i];
    const v = { ttft: l.ttft[i] / 1000, e2e: l.e2e[i] / 1000, itl: l.itl[i] / 1000 };
    if (!Number.isFinite(v.ttft) || !Number.isFinite(v.e2e) || !Number.isFinite(v.itl)) nanCount++;
    const push = (a) => {
      a.ttft.push(v.ttft);
      a.e2e.push(v.e2e);
      a.itl.push(v.itl);
    };
    if (t >= 30e6) push(after30);
    windows.forEach((w, s) => {
      if (t >= w[0] * 1e6 && (w[1] === null || t < w[1] * 1e6)) push(stages[s]);
    });
  }
  const means = (a) => ({ n: a.e2e.length, e2e: mean(a.e2e), ttft: mean(a.ttft), itl: mean(a.itl) });
  const ttftMax = (() => {
    let m = 0;
    for (let i = 0; i < l.size; i++) if (l.flags[i] & 2 && l.ttft[i] > m) m = l.ttft[i];
    return m / 1000;
  })();
  return {
    whole: { n: c.completed_requests, e2e: c.e2e_mean_ms, ttft: c.ttft_mean_ms, itl: c.itl_mean_ms },
    after30: means(after30),
    stages: stages.map(means),
    health: {
      injected: c.injected_requests,
      total_input_tokens: c.total_input_tokens,
      completed: c.completed_requests,
      still_queued: c.still_queued,
      still_running: c.still_running,
      dropped_unservable: c.dropped_unservable,
      preemptions: c.preemption_count,
      cache_hit_rate: run.metrics.kv.cacheHitRate,
      ttft_max_ms: ttftMax,
      non_finite_request_metrics: nanCount,
    },
  };
}

function healthProblems(h, expected) {
  const p = [];
  if (h.completed !== expected) p.push(`completed ${h.completed} of ${expected}`);
  if (h.dropped_unservable > 0) p.push(`${h.dropped_unservable} dropped as unservable`);
  if (h.still_queued + h.still_running > 0) p.push(`${h.still_queued + h.still_running} left in the system`);
  if (h.non_finite_request_metrics > 0) p.push(`${h.non_finite_request_metrics} non-finite request metrics`);
  if (h.ttft_max_ms > 60_000)
    p.push(
      `max TTFT ${(h.ttft_max_ms / 1000).toFixed(0)} s: the simulated queue grows (predicted overload or a stuck request)`,
    );
  return p;
}

function measuredOf(e) {
  const w = e.measured.whole_run;
  const a = e.measured.whole_run_arrivals_after_30s;
  return {
    whole: { e2e: w.e2e_ms.mean, ttft: w.ttft_ms.mean, itl: w.itl_ms.mean_server_output_len },
    after30: a ? { n: a.completed, e2e: a.e2e_ms.mean, ttft: a.ttft_ms.mean, itl: a.itl_ms.mean } : null,
    stages: (e.measured.stages ?? []).map((s) => ({
      e2e: s.e2e_ms.mean,
      ttft: s.ttft_ms.mean,
      itl: s.itl_ms.mean_server_output_len,
    })),
  };
}

const apes = (sim, meas) => (meas ? Object.fromEntries(METRICS.map((m) => [m, ape(sim[m], meas[m])])) : null);

// ------------------------------------------------------------------------------------------------
// Runs

const silentLog = {
  level: "error",
  enabled: () => false,
  log() {},
  trace() {},
  debug() {},
  info() {},
  warn: (m) => args.verbose && progress(`  simulator warning: ${m}`),
  error: (m) => progress(`  simulator error: ${m}`),
};

const selected = experiments.filter(
  (e) => e.gpu === "H100" && (args.only.length === 0 || args.only.some((s) => e.id.includes(s))),
);
const skipped = [];
const results = [];
const t0 = Date.now();
let runsDone = 0;

for (const [idx, e] of selected.entries()) {
  const ms = modelSetup(e);
  const traced = e.workload.trace !== null;
  const L = traced ? null : profileInput.get(e.workload.profile);
  const rec = {
    id: e.id,
    model: ms.name,
    tp: e.tp,
    profile: e.workload.profile,
    role: e.blis_trainval_role,
    sample: sampleOf(e),
    traced,
    requests: e.workload.requests_total,
    model_config: ms.configNote ?? null,
    workload: traced
      ? { arrivals: "trace", lengths: "trace (per request)" }
      : {
          arrivals: `Poisson per stage, stage.requests arrivals in each stage window (seed ${args.seed})`,
          input_tokens: L,
          output_tokens: e.workload.output_len,
          input_note: `mean measured prompt length of the traced ${e.workload.profile} runs`,
        },
    measured: measuredOf(e),
    backends: {},
  };
  const bbOk = blackboxAvailable(ms.name, e);
  // The same requests for every backend: arrivals from one seeded stream, prompts from another.
  const rows = traced
    ? readTrace(e)
    : poissonRows(e, L, e.workload.output_len, makeRng(hashString(`${args.seed}:${e.id}:arrivals`)));
  const files = traced && ms.skip === null ? writeTraceV2(e, rows) : null;
  for (const backend of args.backends) {
    const label = `[${idx + 1}/${selected.length}] ${e.id} ${backend}`;
    if (ms.skip !== null && backend !== "blackbox") {
      rec.backends[backend] = { status: "skipped", reason: ms.skip };
      continue;
    }
    if (backend === "blackbox" && !bbOk) {
      rec.backends[backend] = {
        status: "n/a",
        reason: `no blackbox coefficients in data/defaults.yaml for ${ms.name} on ${e.gpu} TP${e.tp}`,
      };
      continue;
    }
    const eng = e.engine;
    const opts = {
      model: ms.name,
      latencyModel: backend,
      hardware: e.gpu,
      tp: e.tp,
      maxNumRunningReqs: eng.max_num_seqs,
      maxNumScheduledTokens: eng.max_num_batched_tokens,
      blockSizeInTokens: eng.block_size,
      gpuMemoryUtilization: eng.gpu_memory_utilization,
      seed: args.seed,
      log: args.verbose ? "warn" : "error",
    };
    if (eng.kv_blocks_gpu) opts.totalKvBlocks = eng.kv_blocks_gpu;
    if (eng.max_model_len) opts.maxModelLen = eng.max_model_len;
    if (ms.modelConfigFolder && backend !== "blackbox") opts.modelConfigFolder = ms.modelConfigFolder;

    try {
      const tA = Date.now();
      const nativeOpts = traced
        ? { ...opts, replayTrace: files.header, replayTraceData: files.data }
        : { ...opts, workloadSpecObject: inferencePerfSpec(e, L, args.seed) };
      const res = await simulate(nativeOpts);
      const native = summarizeRun(res.run, e);
      const tB = Date.now();
      const src = new CycleSource(
        rows,
        e.workload.system_prompt_len,
        eng.block_size,
        makeRng(hashString(`${args.seed}:${e.id}:prompts`)),
      );
      const cycleRun = runCluster(res.config, src, silentLog);
      const cycle = summarizeRun(cycleRun, e);
      const tC = Date.now();
      const kv = res.config.totalKvBlocks;
      const problems = {
        native: healthProblems(native.health, native.health.injected),
        cycle: healthProblems(cycle.health, rows.length),
      };
      rec.backends[backend] = {
        status: "ok",
        kv_blocks: kv,
        max_model_len: res.config.maxModelLen,
        cycle: {
          ...cycle,
          prompts: src.stats,
          ape: apes(cycle.whole, rec.measured.whole),
          ape_after30: apes(cycle.after30, rec.measured.after30),
        },
        native: {
          ...native,
          ape: apes(native.whole, rec.measured.whole),
          ape_after30: apes(native.after30, rec.measured.after30),
        },
        problems,
      };
      runsDone++;
      progress(
        `${label}: cycle E2E ${cycle.whole.e2e.toFixed(0)} / TTFT ${cycle.whole.ttft.toFixed(1)} / ITL ${cycle.whole.itl.toFixed(2)} ms ` +
          `(measured ${rec.measured.whole.e2e.toFixed(0)} / ${rec.measured.whole.ttft.toFixed(1)} / ${rec.measured.whole.itl.toFixed(2)}); ` +
          `native ${((tB - tA) / 1000).toFixed(1)} s, cycle ${((tC - tB) / 1000).toFixed(1)} s`,
      );
      for (const [mode, ps] of Object.entries(problems))
        if (ps.length > 0) progress(`  WARNING ${mode}: ${ps.join("; ")}`);
    } catch (err) {
      rec.backends[backend] = { status: "error", reason: String(err?.message ?? err).split("\n")[0] };
      progress(`${label}: ERROR ${rec.backends[backend].reason}`);
    }
  }
  if (ms.skip !== null) skipped.push({ id: e.id, reason: ms.skip });
  results.push(rec);
}
const elapsed = (Date.now() - t0) / 1000;
progress(`${runsDone} backend runs (each: native + cycle workload) in ${elapsed.toFixed(1)} s`);

// ------------------------------------------------------------------------------------------------
// Report

const f0 = (x) => (Number.isFinite(x) ? x.toFixed(0) : "–");
const f1 = (x) => (Number.isFinite(x) ? x.toFixed(1) : "–");
const f2 = (x) => (Number.isFinite(x) ? x.toFixed(2) : "–");
const pct = (x) => (Number.isFinite(x) ? `${x.toFixed(1)}%` : "–");

function summarize(mode, key, filter) {
  const out = [];
  for (const b of args.backends) {
    for (const subset of ["all", "in-sample", "out-of-sample"]) {
      const recs = results.filter(
        (r) => r.backends[b]?.status === "ok" && (subset === "all" || r.sample === subset) && filter(r),
      );
      const row = { backend: b, subset, n: recs.length };
      for (const m of METRICS) {
        const xs = recs.map((r) => r.backends[b][mode][key]?.[m]).filter(Number.isFinite);
        row[m] = { median: median(xs), max: Math.max(...xs), n: xs.length };
      }
      out.push(row);
    }
  }
  return out;
}

function summaryTable(rows) {
  const lines = [
    "| backend | experiments | n | E2E median | E2E max | TTFT median | TTFT max | ITL median | ITL max |",
    "|---|---|---:|---:|---:|---:|---:|---:|---:|",
  ];
  for (const r of rows) {
    if (r.n === 0) {
      lines.push(`| ${r.backend} | ${r.subset} | 0 | | | | | | |`);
      continue;
    }
    lines.push(
      `| ${r.backend} | ${r.subset} | ${r.n} | ${pct(r.e2e.median)} | ${pct(r.e2e.max)} | ${pct(r.ttft.median)} | ${pct(r.ttft.max)} | ${pct(r.itl.median)} | ${pct(r.itl.max)} |`,
    );
  }
  return lines.join("\n");
}

const summaries = {
  cycle_whole: summarize("cycle", "ape", () => true),
  cycle_after30: summarize("cycle", "ape_after30", (r) => r.traced),
  native_whole: summarize("native", "ape", () => true),
  native_after30: summarize("native", "ape_after30", (r) => r.traced),
};
const tpSubset = results.filter(
  (r) => r.backends.blackbox?.status === "ok" && r.backends["trained-physics"]?.status === "ok",
);

const md = [];
md.push("# Simulated vs measured vLLM (H100, vLLM 0.15.1)");
md.push("");
md.push(
  `Absolute percentage error of the simulated mean against the measured whole-run mean, per experiment; ` +
    `measured ITL is \`itl_ms.mean_server_output_len\`, simulated ITL is \`itl_mean_ms\`. Seed ${args.seed}. ` +
    `In-sample = \`blis_trainval_role\` fit or evaluation-only (used for the shipped trained-physics coefficients); ` +
    `out-of-sample = null. Blackbox coefficients were fitted on vLLM 0.8.4, so no run is in-sample for them.`,
);
md.push("");
md.push(
  "Workload modelling (primary, *cycle*): traced runs replay the trace's arrivals and lengths; aggregate-only runs get " +
    "Poisson arrivals per stage with the profile's mean measured prompt length (from the traced runs of the same profile) " +
    "and `output_len`. Prompts follow the measured 100-prompt cycle: request k repeats request k−100's prompt token for token " +
    "(so vLLM-style prefix caching serves all but the last partial block), and the first 100 prompts form 10 groups of 10 " +
    "sharing `system_prompt_len` tokens. The trace v2 format cannot express this (its group prefix is a fixed 50 tokens " +
    "added to `input_tokens`), so these requests are built in the script and run through `runCluster` with the " +
    "configuration `simulate()` resolved.",
);
md.push("");
md.push("## Summary: APE, cycle modelling, whole run");
md.push("");
md.push(summaryTable(summaries.cycle_whole));
md.push("");
md.push("## Summary: APE, cycle modelling, traced runs, arrivals after 30 s");
md.push("");
md.push(summaryTable(summaries.cycle_after30));
md.push("");
if (tpSubset.length > 0) {
  md.push(`## Trained-physics vs blackbox on the same ${tpSubset.length} experiments (cycle, whole run)`);
  md.push("");
  md.push(
    summaryTable(
      summarize("cycle", "ape", (r) => tpSubset.includes(r)).filter(
        (r) => r.subset === "all" && r.backend !== "roofline",
      ),
    ),
  );
  md.push("");
}
md.push("## Per experiment (cycle modelling, whole run; ms)");
md.push("");
md.push(
  "| experiment | sample | backend | E2E meas | E2E sim | E2E APE | TTFT meas | TTFT sim | TTFT APE | ITL meas | ITL sim | ITL APE | after-30s APE E2E / TTFT / ITL |",
);
md.push("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|");
for (const r of results) {
  for (const b of args.backends) {
    const x = r.backends[b];
    if (x?.status !== "ok") continue;
    const s = x.cycle.whole;
    const m = r.measured.whole;
    const a = x.cycle.ape;
    const a30 = x.cycle.ape_after30;
    md.push(
      `| ${r.id} | ${r.sample === "in-sample" ? `in (${r.role})` : "out"} | ${b} | ${f0(m.e2e)} | ${f0(s.e2e)} | ${pct(a.e2e)} | ${f1(m.ttft)} | ${f1(s.ttft)} | ${pct(a.ttft)} | ${f2(m.itl)} | ${f2(s.itl)} | ${pct(a.itl)} | ${a30 ? `${pct(a30.e2e)} / ${pct(a30.ttft)} / ${pct(a30.itl)}` : ""} |`,
    );
  }
}
md.push("");
md.push("## Reference: the simulator's own workload paths (native modelling)");
md.push("");
md.push(
  "Traced runs replayed with `replayTrace` from a converted trace v2 (row k in prefix group `p<k mod 100>`, " +
    "i.e. a shared 50-token prefix, the only reuse the format expresses; `input_tokens` = prompt − 50); aggregate-only " +
    "runs with an `inference_perf` workload spec (stages, 10 system prompts × 10 users, single turn, " +
    "no 100-prompt cycle). Whole run:",
);
md.push("");
md.push(summaryTable(summaries.native_whole));
md.push("");
md.push("TTFT per experiment, native vs cycle modelling (ms):");
md.push("");
md.push("| experiment | backend | TTFT meas | native sim | native APE | cycle sim | cycle APE |");
md.push("|---|---|---:|---:|---:|---:|---:|");
for (const r of results) {
  for (const b of args.backends) {
    const x = r.backends[b];
    if (x?.status !== "ok") continue;
    md.push(
      `| ${r.id} | ${b} | ${f1(r.measured.whole.ttft)} | ${f1(x.native.whole.ttft)} | ${pct(x.native.ape.ttft)} | ${f1(x.cycle.whole.ttft)} | ${pct(x.cycle.ape.ttft)} |`,
    );
  }
}
md.push("");
md.push("## Not simulated");
md.push("");
const naGroups = new Map();
for (const r of results) {
  for (const b of args.backends) {
    const x = r.backends[b];
    if (!x || x.status === "ok") continue;
    const key = `${b}: ${x.status} — ${x.reason}`;
    naGroups.set(key, [...(naGroups.get(key) ?? []), r.id]);
  }
}
const na = [...naGroups].map(([key, ids]) => `- ${key}: ${ids.join(", ")}`);
for (const e of experiments.filter((e) => e.gpu !== "H100"))
  na.push(`- ${e.id}: not H100 (${e.gpu}, vLLM ${e.vllm_version}); out of scope`);
md.push(na.length > 0 ? na.join("\n") : "- nothing");
md.push("");
const configNotes = results.filter((r) => r.model_config && !r.model_config.startsWith("bundled"));
if (configNotes.length > 0) {
  md.push(
    `Model configs written for this run: ${[...new Set(configNotes.map((r) => `${r.model} (${r.model_config})`))].join("; ")}.`,
  );
  md.push("");
}
const healthy = results.flatMap((r) =>
  Object.entries(r.backends).flatMap(([b, x]) =>
    x.status === "ok"
      ? Object.entries(x.problems).flatMap(([mode, ps]) => ps.map((p) => `- ${r.id} / ${b} / ${mode}: ${p}`))
      : [],
  ),
);
md.push("## Run health");
md.push("");
md.push(
  healthy.length > 0
    ? healthy.join("\n")
    : "Every simulated request completed; none dropped, none left running, no non-finite metric, no TTFT above 60 s.",
);
md.push("");
process.stdout.write(md.join("\n"));

if (args.json !== "") {
  const out = {
    description:
      "blis simulated vs measured vLLM means (ms) and absolute percentage errors (%), H100 experiments of data/calibration",
    seed: args.seed,
    backends: args.backends,
    modelling: {
      cycle:
        "primary: token-level 100-prompt cycle; traced runs replay arrivals and lengths, aggregate-only runs get per-stage Poisson arrivals",
      native: "reference: trace v2 replay (50-token prefix groups p<k mod 100>) / inference_perf workload spec",
    },
    summaries,
    experiments: results,
    skipped,
  };
  fs.writeFileSync(
    args.json,
    JSON.stringify(out, (k, v) => (typeof v === "number" && !Number.isFinite(v) ? null : v), 2) + "\n",
  );
  progress(`wrote ${args.json}`);
}
