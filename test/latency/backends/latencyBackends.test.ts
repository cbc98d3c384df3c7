// Choosing and resolving a latency backend from run options
// (docs/latency.md "Choosing a backend", "Resolution (trained-physics and roofline)", "KV capacity", "Max model
// length", "Coefficient files", "Model names"),
// observed through the library entry point simulate() and the in-process CLI.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { simulate, type SimulationResult } from "../../../src/sim/simulate.js";
import type { RunInput } from "../../../src/config/runOptions.js";
import type { FetchLike } from "../../../src/latency/modelConfig.js";
import { cli, clusterBlock } from "../../helpers/cli.js";
import { recordingLogger } from "../helpers.js";

const LLAMA = "meta-llama/llama-3.1-8b-instruct";
const MIXTRAL_INSTRUCT = "mistralai/mixtral-8x7b-instruct-v0.1";
const SCOUT_BF16 = "meta-llama/llama-4-scout-17b-16e-instruct";
const SCOUT_FP8 = "redhatai/llama-4-scout-17b-16e-instruct-fp8-dynamic";

/** The bundled data/head/trained-physics.yaml values, as a user would type them. */
const BUNDLED_ALPHA = "15563.199579,777.3455,45.907545";
const BUNDLED_BETA =
  "0.152128,0.0,1.36252915,0.752037,32.09546717,4.41684444,126.024825,481.8613888,0.0,1.94710771,0.752037";
/** data/defaults.yaml: llama-3.1-8b-instruct, H100, TP 2, vllm/vllm-openai:v0.8.4 (the seed default). */
const SEED_ALPHA = "1601.350510688092,3.512476196805965,1805.5430360826988";
const SEED_BETA = "6910.420479880494,17.67057489844186,2.8377471109943855";
const SEED_BLOCKS = "132139";

/** A small distribution workload (20 requests, short prompts and outputs). */
const WORKLOAD: RunInput = {
  numRequests: 20,
  rate: 10,
  promptTokens: 128,
  promptTokensStdev: 32,
  promptTokensMin: 16,
  promptTokensMax: 256,
  outputTokens: 32,
  outputTokensStdev: 8,
  outputTokensMin: 2,
  outputTokensMax: 64,
};
const WORKLOAD_ARGS = Object.entries(WORKLOAD).flatMap(([k, v]) => [flag(k), String(v)]);

function flag(key: string): string {
  return "--" + key.replace(/[A-Z]/g, (c) => "-" + c.toLowerCase());
}

/** Model-config downloads must never happen in these tests. */
const noFetch: FetchLike = async (url) => {
  throw new Error(`unexpected download of ${url}`);
};

async function sim(input: RunInput): Promise<SimulationResult & { lines: string[] }> {
  const { logger, lines } = recordingLogger();
  const res = await simulate({ model: LLAMA, ...WORKLOAD, ...input }, { logger, fetchImpl: noFetch });
  return Object.assign(res, { lines });
}

/** The "Latency model: …" summary line of a run. */
function summary(lines: string[]): string {
  const l = lines.find((x) => x.includes('msg="Latency model: '));
  assert.ok(l !== undefined, `no latency summary line in:\n${lines.join("\n")}`);
  return /msg="(Latency model: [^"]*)"/.exec(l)![1]!;
}

async function run(...args: string[]) {
  const res = await cli(["run", "--model", LLAMA, ...WORKLOAD_ARGS, ...args]);
  assert.equal(res.code, 0, `${args.join(" ")}: ${res.stderr.join("\n")}`);
  return res;
}

/** The CLI exits 1 with exactly one non-log stderr line and nothing on stdout. */
async function fails(args: string[], expected: string | RegExp): Promise<void> {
  const res = await cli(["run", ...args]);
  const label = args.join(" ");
  assert.equal(res.code, 1, `${label}: exit status (stderr ${JSON.stringify(res.stderr)})`);
  assert.equal(res.stdout, "", `${label}: nothing on stdout`);
  const errors = res.stderr.filter((l) => !l.startsWith("level="));
  assert.equal(errors.length, 1, `${label}: exactly one error line, got ${JSON.stringify(res.stderr)}`);
  assert.ok(!errors[0]!.includes("\n"), `${label}: one line`);
  if (typeof expected === "string") assert.equal(errors[0], expected, label);
  else assert.match(errors[0]!, expected, label);
}

const llama = (...args: string[]) => ["--model", LLAMA, "--num-requests", "5", ...args];

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "blis-latency-backends-"));
process.on("exit", () => fs.rmSync(tmp, { recursive: true, force: true }));
let fileCount = 0;
/** A fresh file per call (coefficient files are cached by path within a process). */
function coeffFile(text: string): string {
  const f = path.join(tmp, `coeffs-${fileCount++}.yaml`);
  fs.writeFileSync(f, text);
  return f;
}

// ---------------------------------------------------------------------------------------------
// Default resolution

test("default run of llama-3.1-8b: kernels on H100 TP 1, 26312 KV blocks, max-model-len 131072", async () => {
  const res = await sim({});
  assert.equal(res.config.kv.totalKvBlocks, 26312);
  assert.equal(res.config.engine.maxModelLen, 131072);
  assert.equal(summary(res.lines), "Latency model: kernels on H100 TP 1, 26312 KV blocks, max-model-len 131072");
  assert.ok(res.lines.some((l) => l.includes("Using default tp=1 for meta-llama/llama-3.1-8b-instruct")));
  assert.ok(res.lines.some((l) => l.includes("Using default GPU H100 for meta-llama/llama-3.1-8b-instruct")));
  assert.ok(
    res.lines.some((l) =>
      l.includes("auto-calculated total-kv-blocks=26312 (GPU=80 GiB, TP=1, block_size=16, MoE=false)"),
    ),
  );
  assert.ok(res.lines.some((l) => l.includes("auto-derived max-model-len=131072 from max_position_embeddings")));
  // The kernels model keeps the physical bounds: no warning.
  assert.equal(res.lines.filter((l) => l.startsWith("level=warn")).length, 0, res.lines.join("\n"));
  const c = res.metrics.cluster;
  assert.equal(c.completed_requests, 20);
  // The bundled kernels overheads queue every request α0 = 14654 µs.
  assert.ok(c.scheduling_delay_p99_ms >= 14.653, String(c.scheduling_delay_p99_ms));
});

test("explicit trained-physics: bundled coefficients, and one warning naming the broken prefill bound", async () => {
  const res = await sim({ latencyModel: "trained-physics" });
  assert.equal(
    summary(res.lines),
    "Latency model: trained-physics on H100 TP 1, 26312 KV blocks, max-model-len 131072",
  );
  assert.ok(
    res.lines.some((l) =>
      l.includes(`alphaCoeffs=[${BUNDLED_ALPHA}], betaCoeffs=[${BUNDLED_BETA.replace(/0\.0,/g, "0,")}]`),
    ),
    "bundled coefficients are used",
  );
  const warns = res.lines.filter((l) => l.startsWith("level=warn"));
  assert.equal(warns.length, 1, res.lines.join("\n"));
  assert.match(
    warns[0]!,
    /trained-physics \(H100 TP1\): prefill \d+ tokens\/s exceeds the dense-peak bound 70\d{3} tokens\/s by \d+\.\d\dx/,
  );
  // Trained-physics queueing is α0 = 15563 µs whatever the prompt.
  assert.ok(res.metrics.cluster.scheduling_delay_p99_ms >= 15.563, String(res.metrics.cluster.scheduling_delay_p99_ms));
});

test("explicit --latency-model kernels equals the default; trained-physics differs", async () => {
  const a = await run();
  const b = await run("--latency-model", "kernels");
  assert.equal(b.stdout, a.stdout);
  const c = await run("--latency-model", "trained-physics");
  assert.notEqual(c.stdout, a.stdout);
});

// ---------------------------------------------------------------------------------------------
// Backend choice

test("--latency-model blackbox equals the seed defaults path (explicit 3-beta coefficients, H100 TP 2 v0.8.4)", async () => {
  const bb = await run("--latency-model", "blackbox");
  const explicit = await run(
    "--alpha-coeffs",
    SEED_ALPHA,
    "--beta-coeffs",
    SEED_BETA,
    "--total-kv-blocks",
    SEED_BLOCKS,
  );
  assert.equal(explicit.stdout, bb.stdout);
  const tp = await run();
  assert.notEqual(tp.stdout, bb.stdout, "trained-physics differs from blackbox");
  const res = await sim({ latencyModel: "blackbox" });
  assert.equal(summary(res.lines), "Latency model: blackbox on H100 TP 2, 132139 KV blocks, max-model-len unlimited");
});

test("--vllm-version selects blackbox", async () => {
  const bb = await run("--latency-model", "blackbox");
  const v = await run("--vllm-version", "vllm/vllm-openai:v0.8.4");
  assert.equal(v.stdout, bb.stdout);
  const res = await sim({ vllmVersion: "vllm/vllm-openai:v0.8.4" });
  assert.match(summary(res.lines), /^Latency model: blackbox on H100 TP 2, /);
});

test("three betas select blackbox; seven to eleven betas with alphas select trained-physics", async () => {
  const three = await sim({ alphaCoeffs: [100, 1, 100], betaCoeffs: [1000, 2, 1], totalKvBlocks: 5000 });
  assert.match(summary(three.lines), /^Latency model: blackbox /);
  const seven = await sim({ alphaCoeffs: [100, 1, 100], betaCoeffs: [0.1, 0.1, 1, 1, 30, 4, 120] });
  assert.equal(
    summary(seven.lines),
    "Latency model: trained-physics on H100 TP 1, 26312 KV blocks, max-model-len 131072",
  );
  const eleven = await sim({ alphaCoeffs: [100, 1, 100], betaCoeffs: [0.1, 0, 1, 1, 30, 4, 120, 400, 0, 2, 1] });
  assert.match(summary(eleven.lines), /^Latency model: trained-physics /);
});

test("the bundled coefficients given as flags (3 alphas, 11 betas) reproduce the trained-physics run", async () => {
  const def = await run("--latency-model", "trained-physics");
  const flags = await run("--alpha-coeffs", BUNDLED_ALPHA, "--beta-coeffs", BUNDLED_BETA);
  assert.equal(flags.stdout, def.stdout);
  // Different betas change the result.
  const other = await run("--alpha-coeffs", BUNDLED_ALPHA, "--beta-coeffs", BUNDLED_BETA.replace(/^0\.152128/, "0.5"));
  assert.notEqual(other.stdout, def.stdout);
});

test("--roofline keeps the seed roofline (prefill 512 at TP 2 = 8033, decode at 512 = 5328)", async () => {
  // One request, prompt 512, output 2, on the seed timeline: queueing trunc(α0 + α1·512) = 3399,
  // TTFT = 3399 + 8033 + trunc(α2) 1805 = 13237; two ITL entries (one decode, duplicated) of
  // 5328 + 1805 = 7133, so E2E = 27503. α comes from the seed defaults file (H100 TP 2).
  const one: RunInput = {
    numRequests: 1,
    promptTokens: 512,
    promptTokensStdev: 0,
    promptTokensMin: 0,
    promptTokensMax: 1000,
    outputTokens: 2,
    outputTokensStdev: 0,
    outputTokensMin: 0,
    outputTokensMax: 10,
  };
  const seed = await sim({ ...one, roofline: true, hardware: "H100", tp: 2 });
  assert.equal(
    summary(seed.lines),
    "Latency model: seed-roofline on H100 TP 2, 132139 KV blocks, max-model-len unlimited",
  );
  assert.equal(seed.run.ledger.ttft[0], 13237);
  assert.equal(seed.run.ledger.e2e[0], 27503);
  assert.equal(seed.metrics.cluster.itl_mean_ms, 7.133);

  // Today's roofline (docs/behavior.md "Reference numbers"): prefill 5942, decode 1532 at TP 2,
  // zero α, and the current timeline (one ITL entry for two output tokens).
  const cur = await sim({ ...one, latencyModel: "roofline", hardware: "H100", tp: 2 });
  assert.equal(summary(cur.lines), "Latency model: roofline on H100 TP 2, 125278 KV blocks, max-model-len 131072");
  assert.equal(cur.run.ledger.ttft[0], 5942);
  assert.equal(cur.run.ledger.e2e[0], 5942 + 1532);
  assert.equal(cur.run.ledger.sched[0], 0);
});

test("--roofline with --latency-model is an error; an unknown --latency-model lists the choices", async () => {
  await fails(
    llama("--roofline", "--hardware", "H100", "--tp", "2", "--latency-model", "roofline"),
    "error: --roofline cannot be combined with --latency-model: --roofline selects the seed-era roofline formula, --latency-model roofline today's",
  );
  await fails(
    llama("--roofline", "--latency-model", "blackbox"),
    /^error: --roofline cannot be combined with --latency-model/,
  );
  await fails(
    llama("--latency-model", "x"),
    'error: unknown --latency-model "x"; valid options: blackbox, kernels, roofline, trained-physics',
  );
});

// ---------------------------------------------------------------------------------------------
// Errors

test("coefficient flag errors", async () => {
  await fails(
    llama("--latency-model", "roofline", "--alpha-coeffs", "1,2,3", "--beta-coeffs", "1,2,3"),
    "error: --alpha-coeffs/--beta-coeffs cannot be used with --latency-model roofline. Roofline computes step time analytically. " +
      "Use --latency-model trained-physics if you want coefficient-based estimation",
  );
  await fails(
    llama("--latency-model", "trained-physics", "--alpha-coeffs", "1,2,3"),
    "error: --alpha-coeffs requires --beta-coeffs. Both coefficient sets are needed for coefficient-based estimation",
  );
  await fails(
    llama("--beta-coeffs", BUNDLED_BETA),
    "error: --beta-coeffs requires --alpha-coeffs. Both coefficient sets are needed for coefficient-based estimation",
  );
  await fails(
    llama("--alpha-coeffs", "1,2,3", "--beta-coeffs", "1,2,3,4,5,6,7,8,9,10,-1"),
    "error: --beta-coeffs[10] must be a finite non-negative number, got -1",
  );
  await fails(
    llama("--latency-model", "trained-physics", "--alpha-coeffs", "1,-2,3", "--beta-coeffs", "1,2,3,4,5,6,7"),
    "error: --alpha-coeffs[1] must be a finite non-negative number, got -2",
  );
  await fails(
    llama(
      "--latency-model",
      "roofline",
      "--latency-coeffs",
      coeffFile("trained_physics_coefficients:\n  alpha_coeffs: [1, 2, 3]\n  beta_coeffs: [1, 2, 3, 4, 5, 6, 7]\n"),
    ),
    "error: --latency-coeffs cannot be used with --latency-model roofline",
  );
});

test("--gpu-memory-utilization must be in (0, 1]", async () => {
  await fails(
    llama("--gpu-memory-utilization", "0"),
    "error: --gpu-memory-utilization must be a finite value in (0, 1.0], got 0.000000",
  );
  await fails(
    llama("--gpu-memory-utilization", "1.5"),
    "error: --gpu-memory-utilization must be a finite value in (0, 1.0], got 1.500000",
  );
  // Checked on every backend.
  await fails(
    llama("--latency-model", "blackbox", "--gpu-memory-utilization", "0"),
    /^error: --gpu-memory-utilization must be/,
  );
});

test("data- and expert-parallel flags", async () => {
  await fails(
    llama("--dp", "2"),
    "error: --dp > 1 is only supported for MoE models (got --dp=2 for a dense model). " +
      "For replicas of a dense model the BLIS equivalent is --num-instances (router replicas), not --dp.",
  );
  await fails(
    llama("--dp", "2", "--latency-model", "roofline"),
    "error: --dp > 1 and --enable-expert-parallel require --latency-model trained-physics (got --dp=2, " +
      "--enable-expert-parallel=false, --latency-model roofline). The roofline backend is DP/EP-blind for step time.",
  );
  await fails(llama("--dp", "0"), "error: --dp must be >= 1, got 0");
  await fails(
    llama("--enable-expert-parallel"),
    'error: --enable-expert-parallel requires a MoE model (got dense model "meta-llama/llama-3.1-8b-instruct" with no experts); ' +
      "vLLM fatally rejects this configuration.",
  );
  await fails(
    llama("--moe-comm-backend", "foo"),
    'error: --moe-comm-backend "foo" is not a recognized vLLM MoE all-to-all backend (valid: naive, allgather_reducescatter, pplx, ' +
      "deepep_high_throughput, deepep_low_latency, mori, flashinfer_all2allv)",
  );
});

test("MoE with --dp 2: allowed with trained-physics, KV capacity doubles (Mixtral TP 2: 48956 → 97912)", async () => {
  const res = await sim({ model: MIXTRAL_INSTRUCT, dp: 2, enableExpertParallel: true, moeCommBackend: "pplx" });
  assert.equal(res.config.kv.totalKvBlocks, 97912);
  assert.equal(res.metrics.cluster.completed_requests, 20);
});

const TP3_VALID =
  "error: --tp 3 is not valid for meta-llama/llama-3.1-8b-instruct: its 32 attention heads and 8 KV heads " +
  "must split evenly over the GPUs; valid: 1, 2, 4, 8";

test("--tp 3 for llama-3.1-8b lists the valid degrees (explicit KV blocks)", async () => {
  await fails(llama("--tp", "3", "--total-kv-blocks", "5000"), TP3_VALID);
  await fails(
    llama("--tp", "16"),
    "error: --tp 16 is not valid for meta-llama/llama-3.1-8b-instruct: its 32 attention heads and 8 KV heads " +
      "must split evenly over the GPUs; valid: 1, 2, 4, 8",
  );
});

test("--tp 3 for llama-3.1-8b lists the valid degrees (automatic KV blocks)", async () => {
  await fails(llama("--tp", "3"), TP3_VALID);
});

test("an unknown GPU lists the known ones", async () => {
  await fails(
    llama("--hardware", "X9"),
    'error: GPU "X9" has no kernel tables (H100, H200, B200, A100-SXM, A100-80, L40S, RTX-PRO-6000) and no entry in the bundled hardware file (A100-80, A100-SXM, H100, L40S)',
  );
  await fails(
    llama("--hardware", "B200", "--latency-model", "trained-physics"),
    'error: Failed to load hardware config: GPU "B200" not found in hardware config (available: [A100-80 A100-SXM H100 L40S])',
  );
});

test("a model that does not fit says how many GPUs it needs (Mixtral at TP 1)", async () => {
  await fails(
    ["--model", MIXTRAL_INSTRUCT, "--tp", "1", "--num-requests", "5"],
    "error: --latency-model: KV capacity auto-calculation failed: mistralai/mixtral-8x7b-instruct-v0.1 at TP 1: CalculateKVBlocks: " +
      "model overhead (95.14 GiB = 86.99 weights + 8.00 activation + 0.15 non-torch + 0.00 lora-adapter-reservation) exceeds " +
      "available GPU memory (72.00 GiB = 80.0 GiB × 90% util × 1 GPUs). Minimum GPUs required per instance: 2",
  );
});

test("an unknown model", async () => {
  await fails(
    ["--model", "no-such-org/no-such-model", "--num-requests", "5"],
    "error: unknown model no-such-org/no-such-model: no defaults for it in the bundled data; give --hardware and --tp " +
      "(and --model-config-folder unless its config.json is bundled), or run `blis models` to list the known models",
  );
  await fails(
    ["--model", "no-such-org/no-such-model", "--latency-model", "trained-physics"],
    "error: --latency-model trained-physics requires --hardware and --tp. No defaults found in defaults.yaml for " +
      "model=no-such-org/no-such-model. Provide these flags explicitly",
  );
  await fails(
    ["--model", "no-such-org/no-such-model", "--latency-model", "roofline", "--hardware", "H100"],
    "error: Roofline mode requires --tp. No defaults found in defaults.yaml for model=no-such-org/no-such-model. " +
      "Provide these flags explicitly, or use --latency-model trained-physics for coefficient-based estimation",
  );
});

// ---------------------------------------------------------------------------------------------
// Model names

test("mixtral-8x7b-instruct-v0.1 runs the default kernels model on the mixtral-8x7b-v0.1 config", async () => {
  const res = await sim({ model: MIXTRAL_INSTRUCT });
  assert.ok(
    res.lines.some((l) =>
      l.includes(
        "Using the bundled config of mixtral-8x7b-v0.1 for mistralai/mixtral-8x7b-instruct-v0.1 (same architecture)",
      ),
    ),
    res.lines.join("\n"),
  );
  // docs/latency.md "KV capacity" and "Max model length": Mixtral TP 2 has 48956 blocks and
  // max-model-len 32768.
  assert.equal(summary(res.lines), "Latency model: kernels on H100 TP 2, 48956 KV blocks, max-model-len 32768");
  assert.equal(res.metrics.cluster.completed_requests, 20);
});

test("llama-3.3-70b-instruct uses the Llama-3.1-70B config", async () => {
  const res = await sim({ model: "meta-llama/llama-3.3-70b-instruct" });
  assert.ok(
    res.lines.some((l) =>
      l.includes("Using the bundled config of llama-3.1-70b-instruct for meta-llama/llama-3.3-70b-instruct"),
    ),
  );
  // docs/latency.md "KV capacity": Llama-3.1-70B on H100 TP 4 has 121801 blocks (the bundled
  // default TP for 3.3 is 4).
  assert.equal(summary(res.lines), "Latency model: kernels on H100 TP 4, 121801 KV blocks, max-model-len 131072");
});

test("bf16 Llama-4-Scout matched to the FP8 folder does not inherit FP8 weights", async () => {
  const bf16 = await sim({ model: SCOUT_BF16, tp: 4 });
  const fp8 = await sim({ model: SCOUT_FP8, tp: 4 });
  assert.ok(
    bf16.lines.some((l) =>
      l.includes(`Using the bundled config of llama-4-scout-17b-16e-instruct-fp8-dynamic for ${SCOUT_BF16}`),
    ),
  );
  // Two-byte weights leave less memory for KV.
  assert.equal(bf16.config.kv.totalKvBlocks, 120303);
  assert.equal(fp8.config.kv.totalKvBlocks, 249660);
  // With the same KV capacity, only the step times differ: under trained-physics bf16 weights are
  // read at two bytes and computed at the bf16 peak, so every step is slower. (The kernels model
  // uses the measured bf16 and fp8 GEMM tables instead, where fp8 is not faster at every shape.)
  const tp = { latencyModel: "trained-physics", tp: 4, totalKvBlocks: 100000 } as const;
  const a = await sim({ model: SCOUT_BF16, ...tp });
  const b = await sim({ model: SCOUT_FP8, ...tp });
  assert.ok(
    a.metrics.cluster.itl_mean_ms > b.metrics.cluster.itl_mean_ms,
    `${a.metrics.cluster.itl_mean_ms} vs ${b.metrics.cluster.itl_mean_ms}`,
  );
  assert.ok(a.metrics.cluster.ttft_mean_ms > b.metrics.cluster.ttft_mean_ms);
  // The FP8 model at its own name keeps its quantization (TP 2 has 27345 blocks).
  const fp8tp2 = await sim({ model: SCOUT_FP8 });
  assert.equal(fp8tp2.config.kv.totalKvBlocks, 27345);
});

// ---------------------------------------------------------------------------------------------
// Blackbox fallback

test("a model with no bundled config but blackbox coefficients (phi-4) runs blackbox by default, with a warning", async () => {
  const def = await cli(["run", "--model", "microsoft/phi-4", ...WORKLOAD_ARGS]);
  assert.equal(def.code, 0, def.stderr.join("\n"));
  const warn = def.stderr.filter((l) => l.startsWith("level=warn") && l.includes("blackbox"));
  assert.equal(warn.length, 1, def.stderr.join("\n"));
  assert.match(warn[0]!, /no bundled config\.json for microsoft\/phi-4: using its blackbox coefficients \(H100 TP2\)/);
  const bb = await cli(["run", "--model", "microsoft/phi-4", "--latency-model", "blackbox", ...WORKLOAD_ARGS]);
  assert.equal(bb.code, 0);
  assert.equal(def.stdout, bb.stdout);
  const res = await sim({ model: "microsoft/phi-4" });
  assert.match(summary(res.lines), /^Latency model: blackbox on H100 TP 2, /);
});

// ---------------------------------------------------------------------------------------------
// Coefficient files

const TP_HEADER = "trained_physics_coefficients:\n";
const BUNDLED_FILE =
  TP_HEADER +
  "  alpha_coeffs: [15563.199579, 777.3455, 45.907545]\n" +
  "  beta_coeffs: [0.152128, 0.0, 1.36252915, 0.752037, 32.09546717, 4.41684444, 126.024825, 481.8613888, 0.0, 1.94710771, 0.752037]\n";

test("--latency-coeffs with the bundled values equals trained-physics; other betas change the result", async () => {
  const def = await run("--latency-model", "trained-physics");
  const same = await run("--latency-coeffs", coeffFile(BUNDLED_FILE));
  assert.equal(same.stdout, def.stdout);
  const other = await run(
    "--latency-coeffs",
    coeffFile(BUNDLED_FILE.replace("0.152128", "0.9").replace("126.024825", "900")),
  );
  assert.notEqual(other.stdout, def.stdout);
  assert.ok(Number(clusterBlock(other.stdout)["e2e_mean_ms"]) > Number(clusterBlock(def.stdout)["e2e_mean_ms"]));
  // The file's defaults map gives the model's GPU and TP.
  const withDefaults = coeffFile(BUNDLED_FILE + `defaults:\n  ${LLAMA}: {GPU: H100, tensor_parallelism: 2}\n`);
  const res = await sim({ latencyCoeffs: withDefaults });
  assert.equal(
    summary(res.lines),
    "Latency model: trained-physics on H100 TP 2, 125278 KV blocks, max-model-len 131072",
  );
  // Flags override the file.
  const flags = await run(
    "--latency-coeffs",
    coeffFile(BUNDLED_FILE.replace("0.152128", "0.9")),
    "--alpha-coeffs",
    BUNDLED_ALPHA,
    "--beta-coeffs",
    BUNDLED_BETA,
  );
  assert.equal(flags.stdout, def.stdout);
});

test("malformed --latency-coeffs files give one-line errors naming the file", async () => {
  const unknownKey = coeffFile(
    TP_HEADER + "  alpha_coeffs: [1, 2, 3]\n  beta_coeffs: [1, 2, 3, 4, 5, 6, 7]\n  gamma: [1]\n",
  );
  await fails(
    llama("--latency-coeffs", unknownKey),
    `error: --latency-coeffs: ${unknownKey}: trained_physics_coefficients: unknown key "gamma"`,
  );
  const unknownTop = coeffFile(TP_HEADER + "  alpha_coeffs: [1, 2, 3]\n  beta_coeffs: [1, 2, 3, 4, 5, 6, 7]\nfoo: 1\n");
  await fails(llama("--latency-coeffs", unknownTop), `error: --latency-coeffs: ${unknownTop}: unknown key "foo"`);
  const fewBetas = coeffFile(TP_HEADER + "  alpha_coeffs: [1, 2, 3]\n  beta_coeffs: [1, 2, 3, 4, 5, 6]\n");
  await fails(
    llama("--latency-coeffs", fewBetas),
    `error: --latency-coeffs: ${fewBetas}: trained_physics_coefficients.beta_coeffs needs at least 7 values, got 6`,
  );
  const fewAlphas = coeffFile(TP_HEADER + "  alpha_coeffs: [1, 2]\n  beta_coeffs: [1, 2, 3, 4, 5, 6, 7]\n");
  await fails(
    llama("--latency-coeffs", fewAlphas),
    `error: --latency-coeffs: ${fewAlphas}: trained_physics_coefficients.alpha_coeffs needs at least 3 values, got 2`,
  );
  const negative = coeffFile(TP_HEADER + "  alpha_coeffs: [1, -2, 3]\n  beta_coeffs: [1, 2, 3, 4, 5, 6, 7]\n");
  await fails(
    llama("--latency-coeffs", negative),
    `error: --latency-coeffs: ${negative}: trained_physics_coefficients.alpha_coeffs[1] must be a finite number >= 0, got -2`,
  );
  const missing = path.join(tmp, "does-not-exist.yaml");
  await fails(llama("--latency-coeffs", missing), `error: --latency-coeffs: cannot read ${missing}: no such file`);
  // A YAML syntax error still names the file on one line.
  const syntax = coeffFile(TP_HEADER + "  alpha_coeffs: [1, 2, 3\n  beta_coeffs: [1, 2, 3, 4, 5, 6, 7]\n");
  await fails(
    llama("--latency-coeffs", syntax),
    new RegExp(`^error: --latency-coeffs: ${escapeRe(syntax)}(:\\d+)?: \\S`),
  );
});

test("a YAML syntax error in --latency-coeffs names the line", async () => {
  const syntax = coeffFile(TP_HEADER + "  alpha_coeffs: [1, 2, 3\n  beta_coeffs: [1, 2, 3, 4, 5, 6, 7]\n");
  await fails(llama("--latency-coeffs", syntax), new RegExp(`^error: --latency-coeffs: ${escapeRe(syntax)}:3: `));
  const dup = coeffFile(TP_HEADER + "  alpha_coeffs: [1, 2, 3]\n  alpha_coeffs: [1, 2, 3]\n");
  await fails(
    llama("--latency-coeffs", dup),
    new RegExp(`^error: --latency-coeffs: ${escapeRe(dup)}:3: Map keys must be unique`),
  );
});

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

// ---------------------------------------------------------------------------------------------
// Engine flags

test("--max-num-seqs and --max-num-batched-tokens act like --max-num-running-reqs and --max-num-scheduled-tokens", async () => {
  const old = await run("--max-num-running-reqs", "3", "--max-num-scheduled-tokens", "96");
  const cur = await run("--max-num-seqs", "3", "--max-num-batched-tokens", "96");
  assert.equal(cur.stdout, old.stdout);
  const def = await run();
  assert.notEqual(cur.stdout, def.stdout, "the limits bind on this workload");
  // The new names win when both are given.
  const both = await run(
    "--max-num-running-reqs",
    "200",
    "--max-num-scheduled-tokens",
    "4000",
    "--max-num-seqs",
    "3",
    "--max-num-batched-tokens",
    "96",
  );
  assert.equal(both.stdout, cur.stdout);
  const res = await sim({ maxNumSeqs: 3, maxNumBatchedTokens: 96 });
  assert.equal(res.config.engine.maxRunning, 3);
  assert.equal(res.config.engine.maxScheduledTokens, 96);
});

const LONG: RunInput = {
  numRequests: 40,
  rate: 20,
  promptTokens: 400,
  promptTokensStdev: 200,
  promptTokensMin: 10,
  promptTokensMax: 1000,
  outputTokens: 200,
  outputTokensStdev: 100,
  outputTokensMin: 2,
  outputTokensMax: 500,
};

test("--max-model-len 600: trained-physics drops longer requests as unservable; blackbox ignores it", async () => {
  const res = await sim({ ...LONG, maxModelLen: 600 });
  assert.equal(res.config.engine.maxModelLen, 600);
  const l = res.run.ledger;
  let tooLong = 0;
  for (let i = 0; i < l.size; i++) if (l.inputLen[i]! + l.outputLen[i]! > 600 || l.inputLen[i]! >= 600) tooLong++;
  const c = res.metrics.cluster;
  assert.ok(tooLong > 0 && tooLong < 40, `the workload has both kinds (${tooLong} too long)`);
  assert.equal(c.dropped_unservable, tooLong);
  assert.equal(c.completed_requests + c.still_queued + c.still_running + c.dropped_unservable, 40);
  assert.equal(res.metrics.generated, 40);
  assert.equal(c.completed_requests, 40 - tooLong);
  // One debug line per dropped request, one warning for all of them.
  const drops = res.lines.filter(
    (x) => x.startsWith("level=debug") && x.includes("as unservable") && x.includes("max-model-len 600"),
  );
  assert.equal(drops.length, tooLong);
  const warnings = res.lines.filter((x) => x.startsWith("level=warn") && x.includes("as unservable"));
  assert.equal(warnings.length, 1, warnings.join("\n"));
  assert.match(
    warnings[0]!,
    new RegExp(
      `${tooLong} of 40 requests were dropped as unservable: ${tooLong} exceed the max-model-len \\(e\\.g\\. request_\\d+: prompt \\d+ (\\+ output \\d+ tokens exceed|tokens leave no room for output under) max-model-len 600\\); --log debug lists each`,
    ),
  );

  const bb = await sim({ ...LONG, maxModelLen: 600, latencyModel: "blackbox" });
  assert.equal(bb.config.engine.maxModelLen, 0);
  assert.equal(bb.metrics.cluster.dropped_unservable, 0);
  assert.equal(bb.metrics.cluster.completed_requests, 40);
  const bbPlain = await sim({ ...LONG, latencyModel: "blackbox" });
  assert.deepEqual(bb.metrics.cluster, bbPlain.metrics.cluster);
});

test("max-model-len is capped at the KV capacity, even when explicit", async () => {
  const res = await sim({ totalKvBlocks: 4096 });
  assert.equal(res.config.engine.maxModelLen, 65536);
  assert.ok(
    res.lines.some((l) =>
      l.includes("max-model-len 131072 exceeds KV capacity (4096 blocks × 16 tokens); capping to 65536 tokens"),
    ),
  );
  const explicit = await sim({ totalKvBlocks: 100, maxModelLen: 5000 });
  assert.equal(explicit.config.engine.maxModelLen, 1600);
});

test("--total-kv-blocks wins over the automatic count; --gpu-memory-utilization 0.5 gives 9928 blocks", async () => {
  const explicit = await sim({ totalKvBlocks: 777 });
  assert.equal(explicit.config.kv.totalKvBlocks, 777);
  assert.ok(!explicit.lines.some((l) => l.includes("auto-calculated total-kv-blocks")));
  assert.match(summary(explicit.lines), /^Latency model: kernels on H100 TP 1, 777 KV blocks, /);
  const half = await sim({ gpuMemoryUtilization: 0.5 });
  assert.equal(half.config.kv.totalKvBlocks, 9928);
  assert.ok(half.lines.some((l) => l.includes("--gpu-memory-utilization: 0.50 used for KV block auto-calculation")));
  // Same for today's roofline; other GPUs as in docs/latency.md "KV capacity".
  assert.equal((await sim({ latencyModel: "roofline", gpuMemoryUtilization: 0.5 })).config.kv.totalKvBlocks, 9928);
  // The L40S entry of the bundled hardware file says 48 GiB; the kernel database's figure is the
  // card's 44.99 GiB (48 GB), which the default kernels model uses.
  assert.equal((await sim({ hardware: "L40S", latencyModel: "trained-physics" })).config.kv.totalKvBlocks, 11567);
  assert.equal((await sim({ hardware: "A100-80" })).config.kv.totalKvBlocks, 26312);
});
