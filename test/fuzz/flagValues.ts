// Values for every `blis run` flag: valid ones (small, so a run takes milliseconds), boundary
// ones (zero, negative, huge, not finite, int64 edges) and invalid text, plus the files a path
// flag points at. The flag list itself comes from the CLI (runFlags), so new flags are fuzzed too,
// with values by type until they get their own entry here.

import fs from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { runFlags } from "../../src/config/runFlags.js";
import { DIR, REPO, type FuzzFile } from "./case.js";
import { bundleArb, BUNDLE_KEYS, ADMISSION, PREEMPTION, PRIORITY, ROUTING, SCHEDULERS } from "./bundleGen.js";
import { SPEC_KEYS, specArb } from "./specGen.js";
import { brokenText, yamlFile } from "./yamlGen.js";

export interface Value {
  text: string;
  files: FuzzFile[];
  dirs: string[];
  /** Keys of the file the value names, when it is a YAML file. */
  keys: string[];
}

const v = (text: string, files: FuzzFile[] = [], dirs: string[] = [], keys: string[] = []): Value => ({
  text,
  files,
  dirs,
  keys,
});
const texts = (...xs: string[]): fc.Arbitrary<Value> => fc.constantFrom(...xs).map((t) => v(t));

export const REPO_ROOT = path.resolve(import.meta.dirname, "..", "..", "..");
const repoText = (rel: string): string => fs.readFileSync(path.join(REPO_ROOT, rel), "utf8");

const JUNK: fc.Arbitrary<Value> = fc
  .oneof(
    fc.constantFrom("", " ", "abc", "1,2", "-", "--", "true", "null", "1 2", "١٢", "１", "\t3", "3 ", "'3'", "é", "-5"),
    fc.string({ maxLength: 5 }),
  )
  .map((t) => v(t));
const INT_EDGE = texts(
  "0",
  "1",
  "-1",
  "2147483647",
  "2147483648",
  "-2147483648",
  "9007199254740991",
  "9007199254740993",
  "9223372036854775807",
  "9223372036854775808",
  "-9223372036854775808",
  "-9223372036854775809",
  "1.5",
  "1e3",
  "0x10",
  "007",
  "+5",
);
/** For flags that scale the simulated work: no huge positive values (a huge run is not a hang). */
const WORK_INT_EDGE = texts("0", "1", "-1", "2", "-2147483648", "-9223372036854775808", "1.5", "+5", "007");
const FLOAT_EDGE = texts(
  "0",
  "-0",
  "1e-300",
  "5e-324",
  "1e300",
  "1.7976931348623157e308",
  "1e309",
  "-1",
  "-1e-9",
  "NaN",
  "nan",
  "Inf",
  "+Inf",
  "-Inf",
  "infinity",
  "0x1p-2",
  "1_0",
  ".5",
  "5.",
);
const FLOATS_EDGE = texts(
  "",
  ",",
  "1,,2",
  "1,2",
  "1,2,3,4",
  "NaN,1,1",
  "Inf,1,1",
  "-1,0,0",
  "1e300,1,1",
  "0,0,0",
  " 1, 2, 3",
  "1;2;3",
  "a,b,c",
  Array(12).fill("1").join(","),
);
const BOOL_EDGE = texts("yes", "no", "2", "", "on", "-1");

/** An input file: generated content in the case directory, a bundled file, or a path that is not a readable file. */
function inputFile(
  name: string,
  contents: fc.Arbitrary<string>,
  repoFiles: string[] = [],
  keys: string[] = [],
): fc.Arbitrary<Value> {
  // Devices, FIFOs and links to devices: every reader refuses them before reading.
  const bad = fc.oneof(
    texts(
      `${DIR}/missing-${name}`,
      DIR,
      "",
      `${DIR}/${name}/x`,
      "/dev/null",
      "/proc/self/status",
      "/dev/zero",
      "/dev/urandom",
    ),
    specialFile(name),
  );
  const generated = contents.map((content) => v(`${DIR}/${name}`, [{ name, content }], [], keys));
  if (repoFiles.length === 0) return fc.oneof({ weight: 5, arbitrary: generated }, { weight: 1, arbitrary: bad });
  const bundled = fc.constantFrom(...repoFiles).map((r) => v(`${REPO}/${r}`, [], [], keys));
  return fc.oneof(
    { weight: 3, arbitrary: generated },
    { weight: 3, arbitrary: bundled },
    { weight: 1, arbitrary: bad },
  );
}

/** A FIFO or a link to /dev/zero in the case directory, named after `name`. */
export function specialFile(name: string): fc.Arbitrary<Value> {
  return fc
    .constantFrom<"fifo" | "zero-link">("fifo", "zero-link")
    .map((kind) => v(`${DIR}/${kind}-${name}`, [{ name: `${kind}-${name}`, content: "", kind }]));
}

/** An output path: writable, under a missing directory or a file, a directory, empty, or an existing file. */
export function outputPath(name: string): fc.Arbitrary<Value> {
  return fc.oneof(
    { weight: 4, arbitrary: fc.constant(v(`${DIR}/${name}`)) },
    { weight: 1, arbitrary: fc.constant(v(`${DIR}/sub/${name}`, [], ["sub"])) },
    { weight: 1, arbitrary: fc.constant(v(`${DIR}/${name}`, [{ name, content: "old\n" }])) },
    { weight: 2, arbitrary: texts(`${DIR}/missing/${name}`, DIR, "", `${DIR}/sub/`) },
    { weight: 1, arbitrary: fc.constant(v(`${DIR}/file.txt/${name}`, [{ name: "file.txt", content: "x" }])) },
  );
}

const yamlText = (arb: Parameters<typeof yamlFile>[0]): fc.Arbitrary<string> =>
  yamlFile(arb, { clean: 3, wrong: 2, broken: 1 }).map((f) => f.text);

const COEFFS =
  "trained_physics_coefficients:\n  alpha_coeffs: [100, 10, 5]\n  beta_coeffs: [0.15, 0, 1.3, 0.75, 32, 4.4, 126, 481, 0, 1.9, 0.75]\n";
const LORA =
  "lora:\n  adapter_capacity: 2\n  adapters:\n    - {id: a, rank: 8}\n    - {id: b, rank: 16}\n    - {id: c, rank: 32}\n";
const LORA_NO_CAPACITY = "lora:\n  adapters:\n    - {id: a, rank: 8}\n";
const LLAMA_CONFIG = "data/model_configs/llama-3.1-8b-instruct/config.json";

/** A --model-config-folder: a folder with a config.json (bundled, edited or junk), the bundled folder, or none. */
const configFolder: fc.Arbitrary<Value> = fc.oneof(
  fc
    .oneof(
      fc.constant(repoText(LLAMA_CONFIG)),
      brokenText(repoText(LLAMA_CONFIG)),
      fc.constantFrom(
        "{}",
        '{"num_hidden_layers": 0, "hidden_size": 0}',
        '{"num_hidden_layers": -1, "hidden_size": 4096, "num_attention_heads": 0}',
        "[]",
        "",
      ),
    )
    .map((content) => v(`${DIR}/cfg`, [{ name: "cfg/config.json", content }])),
  texts(`${REPO}/data/model_configs/llama-3.1-8b-instruct`, `${DIR}/missing`, DIR, ""),
);

const PLUGINS = [
  "export function register(api) {}\n",
  "export const x = 1;\n",
  "throw new Error('boom');\n",
  "export function register( {\n",
  "",
  "export function register(api) { throw new Error('nope'); }\n",
];

/** Valid (or, for files, mostly valid) values of the flags that have their own pools. */
const VALID: Record<string, fc.Arbitrary<Value>> = {
  "--model": fc.oneof(
    { weight: 6, arbitrary: texts("meta-llama/llama-3.1-8b-instruct") },
    {
      weight: 2,
      arbitrary: texts(
        "qwen/qwen3-14b",
        "ibm-granite/granite-3.1-8b-instruct",
        "Meta-Llama/Llama-3.1-8B-Instruct",
        "codellama/codellama-34b-instruct-hf",
      ),
    },
    { weight: 1, arbitrary: texts("", "unknown/model", "llama", "a/b/c", " ") },
  ),
  "--hardware": texts("H100", "A100-80", "A100-SXM", "L40S", "h100", "TPU"),
  "--tp": texts("1", "2", "4", "3", "8"),
  "--vllm-version": texts("vllm/vllm-openai:v0.8.4", "v0.8.4", "x"),
  "--latency-model": texts("trained-physics", "roofline", "blackbox", "Roofline", "x"),
  "--latency-coeffs": inputFile("coeffs.yaml", fc.oneof(fc.constant(COEFFS), brokenText(COEFFS)), [
    "data/head/trained-physics.yaml",
  ]),
  "--model-config-folder": configFolder,
  "--hardware-config": inputFile(
    "hw.json",
    fc.oneof(brokenText(repoText("data/head/hardware_config.json")), fc.constantFrom("{}", '{"H100": {}}', "[]")),
    ["data/hardware_config.json", "data/head/hardware_config.json"],
  ),
  "--gpu-memory-utilization": texts("0.9", "0.5", "1", "0.05"),
  "--dp": texts("1", "2"),
  "--moe-comm-backend": texts(
    "naive",
    "allgather_reducescatter",
    "pplx",
    "deepep_high_throughput",
    "deepep_low_latency",
    "mori",
    "flashinfer_all2allv",
    "x",
  ),
  "--defaults-filepath": inputFile(
    "defaults.yaml",
    fc.oneof(
      brokenText(repoText("data/defaults.yaml")),
      fc.constantFrom("defaults: {}\n", "models: []\n", "workloads:\n  chatbot: {}\n"),
    ),
    ["data/defaults.yaml"],
  ),
  "--alpha-coeffs": texts("100,1,100", "0,0,0", "1000,0,0", "1.5,2.5,3.5"),
  "--beta-coeffs": texts(
    "1000,2,1",
    "100,1,1",
    "0.15,0,1.3,0.75,32,4.4,126",
    "0.15,0,1.3,0.75,32,4.4,126,481,0,1.9,0.75",
  ),
  "--seed": texts("0", "1", "42", "123456789", "-7"),
  "--horizon": texts("1", "1000", "100000", "1000000", "10000000"),
  "--workload": texts("distribution", "chatbot", "contentgen", "summarization", "multidoc", "traces", "x"),
  "--workload-spec": inputFile(
    "spec.yaml",
    yamlText(specArb),
    [
      "examples/prefix-affinity-demo.yaml",
      "examples/multiturn-chat-demo.yaml",
      "examples/servegen-language.yaml",
      "examples/inference-perf-shared-prefix.yaml",
    ],
    SPEC_KEYS,
  ),
  "--workload-traces-filepath": inputFile(
    "trace.csv",
    fc.oneof(
      brokenText(repoText("test/fixtures/workload/trace.csv")),
      fc.constantFrom("", "arrival_time\n", "a,b\n1,2\n"),
    ),
    ["test/fixtures/workload/trace.csv"],
  ),
  "--replay-trace": inputFile("trace-header.yaml", brokenText(repoText("test/fixtures/workload/trace-header.yaml")), [
    "test/fixtures/workload/trace-header.yaml",
  ]),
  "--replay-trace-data": inputFile("trace-data.csv", brokenText(repoText("test/fixtures/workload/trace-data.csv")), [
    "test/fixtures/workload/trace-data.csv",
  ]),
  "--rate": texts("1", "10", "100", "1000", "0.5"),
  "--num-requests": texts("1", "2", "3", "5"),
  // Client deadlines: short ones time requests out, negative ones disable them, 0 is an error.
  "--timeout": texts("1", "2", "30", "-1", "0"),
  "--prefix-tokens": texts("0", "8", "32"),
  "--prompt-tokens": texts("10", "20", "40"),
  "--prompt-tokens-stdev": texts("0", "5", "10"),
  "--prompt-tokens-min": texts("1", "2", "5"),
  "--prompt-tokens-max": texts("50", "100", "2147483647"),
  "--output-tokens": texts("1", "5", "10"),
  "--output-tokens-stdev": texts("0", "2", "5"),
  "--output-tokens-min": texts("1", "2"),
  "--output-tokens-max": texts("10", "20", "2147483647"),
  "--total-kv-blocks": texts("1", "4", "16", "100", "1000000"),
  "--block-size-in-tokens": texts("1", "4", "16", "64"),
  "--max-num-seqs": texts("1", "2", "256"),
  "--max-num-batched-tokens": texts("1", "16", "2048"),
  "--max-num-running-reqs": texts("1", "2", "256"),
  "--max-num-scheduled-tokens": texts("1", "16", "2048"),
  "--long-prefill-token-threshold": texts("0", "1", "16"),
  "--max-model-len": texts("0", "10", "100", "100000"),
  "--kv-cpu-blocks": texts("0", "10", "1000"),
  "--kv-offload-threshold": texts("0", "0.5", "0.9", "1"),
  "--kv-transfer-bandwidth": texts("100", "1", "0.5"),
  "--kv-transfer-base-latency": texts("0", "10", "1000"),
  "--num-instances": texts("1", "2", "3", "8"),
  "--admission-policy": texts(...ADMISSION, "x"),
  "--admission-latency": texts("0", "100", "-100"),
  "--routing-latency": texts("0", "100", "-100"),
  "--token-bucket-capacity": texts("10000", "100", "1"),
  "--token-bucket-refill-rate": texts("1000", "10", "0"),
  "--routing-policy": texts(...ROUTING, "x"),
  "--routing-scorers": texts(
    "prefix-affinity:3,queue-depth:2,kv-utilization:2",
    "queue-depth:1",
    "load-balance:1,kv-pressure:2",
    "slo-priority:1",
    "",
    "queue-depth",
    "x:1",
    "queue-depth:-1",
    "queue-depth:NaN",
    "queue-depth:1,queue-depth:2",
    "kv-utilization:0",
    ":",
    ",",
  ),
  "--priority-policy": texts(...PRIORITY, "x"),
  "--scheduler": texts(...SCHEDULERS, "x"),
  "--policy-config": inputFile(
    "policy.yaml",
    yamlText(bundleArb),
    ["examples/policy-config.yaml", "examples/weighted-routing.yaml"],
    BUNDLE_KEYS,
  ),
  "--snapshot-refresh-interval": texts("0", "1000", "100000"),
  "--trace-level": texts("none", "decisions", "x"),
  "--counterfactual-k": texts("0", "1", "3"),
  "--fitness-weights": texts(
    "throughput:1",
    "p99_ttft:0.5,throughput:1",
    "mean_e2e:1,tokens_per_sec:2",
    "",
    "x:1",
    "throughput:-1",
    "throughput",
    "throughput:NaN",
    "throughput:1,throughput:2",
  ),
  "--log": texts("warn", "error", "info", "debug", "WARN", "warning", "fatal", "x"),
  "--results-path": outputPath("results.json"),
  "--admission-load-threshold": texts("50", "0", "1"),
  "--slo-cache-weights": texts(
    "critical:0.25,standard:0.5,sheddable:0.75",
    "critical:1",
    "",
    "critical:2",
    "x:0.5",
    "critical",
    "critical:0.5,critical:0.5",
  ),
  "--slo-base-critical": texts("10", "0", "-1"),
  "--slo-base-standard": texts("5", "0"),
  "--slo-base-sheddable": texts("1", "0"),
  "--slo-age-weight": texts("0.00001", "0", "1"),
  "--slo-threshold-critical": texts("0", "1000"),
  "--slo-threshold-standard": texts("100000", "0"),
  "--slo-threshold-sheddable": texts("100000", "0"),
  "--priority-bridge": texts("none", "hint", "floor", "x"),
  "--slo-prefill-thresholds": texts(
    "critical:0",
    "critical:0,sheddable:256",
    "default:16",
    "",
    "x:1",
    "critical:-1",
    "critical:1.5",
    "critical",
  ),
  "--preemption-policy": texts(...PREEMPTION, "x"),
  "--plugin": inputFile("plugin.mjs", fc.constantFrom(...PLUGINS)),
  "--plugin-option": texts("a.b=c", "plugin.key=1", "x", "=", "a.=1"),
  "--plugin-timeout": texts("10", "0.5", "0", "-1", "x", "Infinity"),
  "--report": outputPath("report.html"),
  "--report-interval": texts("100000", "1000000", "10000"),
  "--tier-shed-threshold": texts("0", "5", "-1"),
  "--tier-shed-min-priority": texts("0", "3", "-2"),
  "--gaie-qd-threshold": texts("5", "0.5", "0"),
  "--gaie-kv-threshold": texts("0.8", "1", "1.5"),
  "--flow-control": texts("true", "false"),
  "--saturation-detector": texts("never", "utilization", "concurrency", "x"),
  "--queue-depth-threshold": texts("5", "1", "0"),
  "--kv-cache-util-threshold": texts("0.8", "0.1", "0"),
  "--max-concurrency": texts("100", "1", "0"),
  "--dispatch-order": texts("fifo", "priority", "slo-deadline", "x"),
  "--slo-targets": texts("critical=1000,standard=5000", "critical=1", "x", "critical=0", "=5"),
  "--max-gateway-queue-depth": texts("0", "1", "3", "-1"),
  "--per-band-capacity": texts("0", "1", "2", "-1"),
  "--usage-limit-threshold": texts("1", "0.5", "0", "1.5"),
  "--fairness-policy": texts("global-strict", "round-robin", "x"),
  "--request-ttl": texts("0", "1000", "100000", "-1"),
  "--queue-shedding": texts("true", "false"),
  "--dispatch-tick-interval": texts("1000", "0", "10", "-1"),
  "--in-flight-eviction": texts("true", "false"),
  "--slo-ttft": texts("critical=100ms", "standard=1s,critical=50ms", "x", "critical=0s", "critical=-1ms"),
  "--slo-itl": texts("critical=20ms", "default=5ms", "x=", "=1ms"),
  "--detectors": texts(
    "all",
    "composite",
    "threshold,backlog-drift",
    "composite,,threshold",
    "all,composite",
    ",",
    "x",
    "",
  ),
  "--saturation-config": inputFile(
    "saturation.yaml",
    fc.constantFrom(
      "threshold: {threshold_ms: 2000}\n",
      "backlog_drift: {window_size_sec: 10, confidence_ci: 0.95}\n",
      "threshold: {threshold_ms: 0}\n",
      "backlog_drift: {saturated_drain_ratio: 0.9, transient_drain_ratio: 0.5}\n",
      "other: {}\n",
      "",
      "threshold: [",
    ),
  ),
  "--saturation-report": outputPath("saturation.json"),
  "--saturation-final-window": texts("10s", "500ms", "1m", "0s", "-1s", "x", "10"),
  "--slo-e2e": texts("critical=2s", "standard=500us", "critical"),
  "--prefill-instances": texts("0", "1", "2"),
  "--decode-instances": texts("0", "1", "2"),
  "--prefill-decode-instances": texts("0", "1"),
  "--encode-instances": texts("0", "1"),
  "--pd-decider": texts("never", "always", "prefix-threshold", "Always", "x"),
  "--encode-decider": texts("never", "always", "multimodal", "x"),
  "--pd-prefix-threshold": texts("0", "16", "512"),
  "--pd-transfer-bandwidth": texts("25", "1", "0.01", "400"),
  "--pd-transfer-base-latency": texts("0", "0.5", "10"),
  "--prefill-routing-scorers": texts("queue-depth:1", "prefix-affinity:3,queue-depth:2", "", "x:1"),
  "--decode-routing-scorers": texts("kv-utilization:1", "queue-depth:2,load-balance:1", "", "x:1"),
  "--prefill-tp": texts("1", "2", "4", "3"),
  "--decode-tp": texts("1", "2", "4", "3"),
  "--prefill-hardware": texts("H100", "A100-80", "L40S", "TPU"),
  "--decode-hardware": texts("H100", "A100-80", "L40S", "TPU"),
  "--prefill-latency-model": texts("trained-physics", "roofline", "blackbox", "x"),
  "--decode-latency-model": texts("trained-physics", "roofline", "blackbox", "x"),
  "--prefill-max-model-len": texts("0", "10", "100000"),
  "--decode-max-model-len": texts("0", "10", "100000"),
  "--lora-config": inputFile(
    "lora.yaml",
    fc.oneof(fc.constantFrom(LORA, LORA_NO_CAPACITY, "lora: {}\n", "lora:\n  capacity: 1\n"), brokenText(LORA)),
  ),
  "--lora-adapter-capacity": texts("1", "2", "0", "-1", "1.5"),
  "--lora-load-base-latency-us": texts("0", "1500", "-1", "NaN", "1e308"),
  "--lora-load-bandwidth-bytes-us": texts("2e6", "1", "0", "-5", "Inf"),
  "--lora-footprint-bytes-per-rank": texts("2e6", "1", "0", "-5"),
  "--lora-scorer-weight": texts("1", "0.5", "0", "-1", "NaN"),
};

/** Flags whose huge values would only make a long (not a wrong) run. */
const WORK_FLAGS = new Set([
  "--num-requests",
  "--prefix-tokens",
  "--prompt-tokens",
  "--prompt-tokens-stdev",
  "--prompt-tokens-min",
  "--output-tokens",
  "--output-tokens-stdev",
  "--output-tokens-min",
  "--num-instances",
  "--prefill-instances",
  "--decode-instances",
  "--prefill-decode-instances",
  "--encode-instances",
  "--report-interval",
  "--counterfactual-k",
]);

export interface FlagGen {
  flag: string;
  type: string;
  value: fc.Arbitrary<Value>;
}

function edgeFor(flag: string, type: string): fc.Arbitrary<Value> {
  if (type === "int" || type === "int64") return WORK_FLAGS.has(flag) ? WORK_INT_EDGE : INT_EDGE;
  if (type === "float") return FLOAT_EDGE;
  if (type === "floats") return FLOATS_EDGE;
  if (type === "bool") return BOOL_EDGE;
  return JUNK;
}

function validFor(type: string): fc.Arbitrary<Value> {
  if (type === "int" || type === "int64") return texts("0", "1", "10");
  if (type === "float") return texts("0", "0.5", "1", "10");
  if (type === "floats") return texts("1,2,3");
  if (type === "bool") return texts("true", "false", "1", "0", "t", "f", "TRUE", "False");
  return texts("x");
}

/** Every flag of `blis run`, with its value arbitrary: valid, boundary or junk. */
export const FLAG_GENS: FlagGen[] = runFlags().map((f) => ({
  flag: f.flag,
  type: f.type,
  value: fc.oneof(
    { weight: 6, arbitrary: VALID[f.flag] ?? validFor(f.type) },
    { weight: 3, arbitrary: edgeFor(f.flag, f.type) },
    { weight: 1, arbitrary: JUNK },
  ),
}));
