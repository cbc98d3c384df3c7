// The benchmark cases: the `blis run` arguments of each, and the workload spec files they need.
import fs from "node:fs";
import path from "node:path";
import { longContextSpec, writeLongContextTrace } from "./longContextTrace.js";

export const MODEL = "meta-llama/llama-3.1-8b-instruct";

/** The multi-turn chat workload: 5-round sessions with an accumulating context. */
export function multiturnSpec(n: number): string {
  return `version: "2"
seed: 42
category: reasoning
aggregate_rate: 20
num_requests: ${n}
clients:
  - id: chat
    rate_fraction: 1
    arrival: { process: poisson }
    input_distribution: { type: gaussian, params: { mean: 128, std_dev: 30, min: 32, max: 512 } }
    output_distribution: { type: gaussian, params: { mean: 64, std_dev: 20, min: 16, max: 256 } }
    reasoning:
      multi_turn: { max_rounds: 5, think_time_us: 500000, context_growth: accumulate }
`;
}

export type CaseKind =
  | "default"
  | "least-loaded-8"
  | "multiturn-8"
  | "instances-10000"
  | "long-context-512"
  | "long-context-16"
  | "speculative";

/** EAGLE-3 with k = 3 (docs/speculative.md): every decode verifies proposals, so no decode cohort. */
export const SPECULATIVE_CONFIG =
  '{"method": "eagle3", "model": "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B", "num_speculative_tokens": 3, "acceptance_rate": 0.7}';

/** The `blis run` arguments of a case with n requests; spec files go to `dir`. */
export function argsFor(kind: CaseKind, n: number, dir: string): string[] {
  const base = ["run", "--model", MODEL, "--num-requests", String(n)];
  switch (kind) {
    case "default":
      return [...base, "--rate", "100"];
    case "least-loaded-8":
      return [...base, "--rate", "800", "--num-instances", "8", "--routing-policy", "least-loaded"];
    case "multiturn-8": {
      const file = path.join(dir, `multiturn-${n}.yaml`);
      fs.writeFileSync(file, multiturnSpec(n));
      return [...base, "--workload-spec", file, "--num-instances", "8", "--routing-policy", "weighted"];
    }
    case "long-context-512":
    case "long-context-16": {
      // One trace file per size, written once per bench run.
      const trace = path.join(dir, `long-context-${n}.jsonl`);
      if (!fs.existsSync(trace)) writeLongContextTrace(trace, n);
      const spec = path.join(dir, `long-context-${n}.yaml`);
      fs.writeFileSync(spec, longContextSpec(trace));
      const bs = kind === "long-context-512" ? "512" : "16";
      return ["run", "--model", MODEL, "--workload-spec", spec, "--num-instances", "8", "--block-size-in-tokens", bs];
    }
    case "speculative":
      return [...base, "--rate", "100", "--speculative-config", SPECULATIVE_CONFIG];
    case "instances-10000":
      // 100 requests/s per instance, the load of the single-instance default case.
      return [...base, "--rate", "1000000", "--num-instances", "10000"];
  }
}
