// The model and workload flags of `blis run` (README.md "Flags of `blis run`").
import type { FlagSpec } from "./flagDef.js";
import type { ParamFlag } from "../util/policyRegistry.js";
import { RunOptionsSchema, type RunOptions } from "./runOptions.js";
import { workloadSpecSource } from "../workload/sources/workloadSpecSource.js";
import { csvTraceSource } from "../workload/sources/csvTraceSource.js";
import { replayTraceSource } from "../workload/sources/replayTraceSource.js";
import { closedLoopSource } from "../workload/sources/closedLoopSource.js";
import { distributionSource } from "../workload/sources/distributionSource.js";

export const MODEL_FLAGS: FlagSpec[] = [
  {
    key: "model",
    flag: "--model",
    type: "string",
    group: "model",
    help: "model name (required); lower-cased before use",
  },
  {
    key: "hardware",
    flag: "--hardware",
    type: "string",
    group: "model",
    help: "GPU type (default from the defaults file)",
  },
  { key: "tp", flag: "--tp", type: "int", group: "model", help: "tensor parallelism (default from the defaults file)" },
  {
    key: "vllmVersion",
    flag: "--vllm-version",
    type: "string",
    group: "model",
    help: "vLLM version of the blackbox coefficients, or with --latency-model kernels of the nearest kernel tables (default from the defaults file)",
  },
  {
    key: "latencyModel",
    flag: "--latency-model",
    type: "string",
    // The option stays "" (the backend follows the other flags); kernels when none selects one.
    shown: "kernels",
    group: "model",
    help:
      "step-time backend: kernels (measured GPU kernels; default on H100, H200, B200, A100, L40S, RTX PRO 6000), " +
      "trained-physics (default elsewhere), roofline, blackbox (blackbox is also chosen by --vllm-version or three --beta-coeffs)",
  },
  {
    key: "latencyCoeffs",
    flag: "--latency-coeffs",
    type: "string",
    group: "model",
    help:
      "YAML file of coefficients replacing the bundled ones: trained_physics_coefficients (alpha_coeffs, beta_coeffs), " +
      "or kernels_coefficients for the kernels model",
  },
  {
    key: "roofline",
    flag: "--roofline",
    type: "bool",
    group: "model",
    help: "seed-era roofline formula with the seed hardware file; requires --hardware and --tp > 0 (today's roofline: --latency-model roofline)",
  },
  {
    key: "modelConfigFolder",
    flag: "--model-config-folder",
    type: "string",
    group: "model",
    help: "folder with a HuggingFace config.json (default: the bundled config of the model)",
  },
  {
    key: "hardwareConfig",
    flag: "--hardware-config",
    type: "string",
    group: "model",
    help: "GPU table JSON (default: the bundled one of the backend)",
  },
  {
    key: "gpuMemoryUtilization",
    flag: "--gpu-memory-utilization",
    type: "float",
    group: "model",
    help: "fraction of GPU memory for weights, activations and KV cache, in (0, 1] (automatic KV capacity)",
  },
  {
    key: "dp",
    flag: "--dp",
    type: "int",
    group: "model",
    help: "data-parallel ranks per instance (MoE models, trained-physics)",
  },
  {
    key: "enableExpertParallel",
    flag: "--enable-expert-parallel",
    type: "bool",
    group: "model",
    help: "expert parallelism (MoE, trained-physics; no step-time effect, as in BLIS)",
  },
  {
    key: "moeCommBackend",
    flag: "--moe-comm-backend",
    type: "string",
    group: "model",
    help: "MoE dispatch backend for --dp > 1: naive, allgather_reducescatter (default), pplx, deepep_high_throughput, deepep_low_latency, mori, flashinfer_all2allv",
  },
  {
    key: "defaultsFilepath",
    flag: "--defaults-filepath",
    type: "string",
    shown: "bundled data/defaults.yaml",
    group: "model",
    help: "model registry, presets and trained coefficients",
  },
  {
    key: "alphaCoeffs",
    flag: "--alpha-coeffs",
    type: "floats",
    group: "model",
    help: "alpha0,alpha1,alpha2 in ticks. blackbox: queueing a0 + a1*prompt tokens, output processing a2; trained-physics: queueing a0, post-decode overhead a1, output processing a2",
  },
  {
    key: "betaCoeffs",
    flag: "--beta-coeffs",
    type: "floats",
    group: "model",
    help: "three values: blackbox step time = b0 + b1*prefill tokens + b2*decode tokens (ticks); 7 to 11 values: trained-physics betas",
  },
];

/** A built-in workload source's own flags (their keys are run options), placed where the table lists them. */
function sourceFlags(source: { flags: readonly ParamFlag[] }): FlagSpec[] {
  return source.flags.map((f) => {
    if (!(f.key in RunOptionsSchema.shape)) throw new Error(`${f.flag}: ${f.key} is not a run option`);
    const spec: FlagSpec = { key: f.key as keyof RunOptions, flag: f.flag, type: f.type, group: f.group, help: f.help };
    return f.shown === undefined ? spec : { ...spec, shown: f.shown };
  });
}

/**
 * The workload flags: the run-wide and shared ones here, each source's own ones from its
 * descriptor (src/workload/sources/), in the order --help has always listed them.
 */
export const WORKLOAD_FLAGS: FlagSpec[] = [
  {
    key: "seed",
    flag: "--seed",
    type: "int64",
    group: "workload",
    help: "random seed (overrides a workload spec's seed when given)",
  },
  {
    key: "horizon",
    flag: "--horizon",
    type: "int64",
    group: "workload",
    help: "stop after the first event beyond this tick (1 tick = 1 µs; > 0 when given)",
  },
  {
    key: "workload",
    flag: "--workload",
    type: "string",
    group: "workload",
    help: "distribution, traces, or a preset name (chatbot, contentgen, summarization, multidoc)",
  },
  ...sourceFlags(workloadSpecSource),
  ...sourceFlags(csvTraceSource),
  ...sourceFlags(replayTraceSource),
  {
    key: "rate",
    flag: "--rate",
    type: "float",
    shown: "1.0", // BLIS's spelling
    group: "workload",
    help: "arrival rate, requests/s (distribution mode and presets; with --workload-spec it replaces the spec's aggregate_rate)",
  },
  ...sourceFlags(closedLoopSource),
  {
    key: "timeout",
    flag: "--timeout",
    type: "int",
    group: "workload",
    help: "client deadline, seconds after each request's arrival: a request not completed by then times out and frees its KV blocks; negative = no deadlines (with a workload spec: its clients' timeout keys)",
  },
  {
    key: "numRequests",
    flag: "--num-requests",
    type: "int",
    group: "workload",
    help: "number of requests (with --concurrency: only if given)",
  },
  ...sourceFlags(distributionSource),
];
