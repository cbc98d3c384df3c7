// Latency backends: the named ways to turn run options into per-instance step-time models
// (docs/latency.md "Backends"). A backend is one file and one line in ./builtins.ts.

import type { ExtraTerms, FeatureModel } from "../trainedPhysics.js";
import type { LatencyModel } from "../model.js";
import type { ArchConfig } from "../archConfig.js";
import type { GpuPeaks } from "../physicsBounds.js";
import type { FetchLike } from "../modelConfig.js";
import type { Logger } from "../../util/log.js";
import type { ParamFlag, ParamSchema } from "../../util/policyRegistry.js";
import { Registry } from "../../util/registry.js";

/** What the user asked for; `null` marks a flag that was not given. */
export interface LatencyRequest {
  /** `--model`, lower-cased. */
  model: string;
  hardware: string;
  tp: number;
  dp: number;
  vllmVersion: string;
  alpha: number[] | null;
  beta: number[] | null;
  /** `--latency-coeffs` file, "" = none. */
  latencyCoeffs: string;
  modelConfigFolder: string;
  hardwareConfig: string;
  defaultsFilepath: string;
  totalKvBlocks: number | null;
  /** The `--total-kv-blocks` default, used when no capacity can be derived. */
  defaultKvBlocks: number;
  /** GPU bytes reserved for LoRA adapters before KV blocks are derived (docs/lora.md); absent = 0. */
  loraReservedBytes?: number;
  gpuMemoryUtilization: number;
  blockSize: number;
  maxModelLen: number | null;
  enableExpertParallel: boolean;
  moeCommBackend: string;
  /** The backend was chosen by default, not by a flag (allows the blackbox fallback). */
  implicit: boolean;
  log: Logger;
  fetchImpl?: FetchLike;
}

export interface ResolvedLatency {
  /** Backend name, as `--latency-model` spells it. */
  backend: string;
  hardware: string;
  tp: number;
  alpha: readonly number[];
  beta: readonly number[];
  totalKvBlocks: number;
  /** 0 = unlimited. */
  maxModelLen: number;
  /** One model per instance; throws ConstructionError (exit status 2) on invalid coefficients or shapes. */
  build: () => LatencyModel;
  /**
   * What the physical bounds are checked against (docs/latency.md "Physical bounds"); absent for
   * models that are not presented as predictions (roofline is a lower bound) or know no architecture.
   */
  bounds?: { arch: ArchConfig; peaks: GpuPeaks; gpus: number };
  /**
   * Where alpha and beta came from ("--alpha-coeffs/--beta-coeffs", "--latency-coeffs FILE",
   * "bundled data/defaults.yaml (vllm/vllm-openai:v0.8.4)"); absent for models without fitted terms.
   */
  coefficientSource?: string;
  /** Backends with fittable coefficients: the same model with other coefficients (docs/calibration.md "Fit"). */
  withCoefficients?: (c: Coefficients) => () => LatencyModel & FeatureModel;
}

/** A coefficient set of a fittable backend. */
export interface Coefficients {
  alpha: readonly number[];
  beta: readonly number[];
  extra?: ExtraTerms;
}

export interface LatencyBackend<P = Record<string, never>> {
  readonly name: string;
  /** One line for `--help` and error lists. */
  readonly summary: string;
  /** False for backends reached only through a compatibility flag (not listed as choices). */
  readonly listed: boolean;
  /** The backend's own parameters: a zod object schema whose defaults are the only defaults. */
  readonly params?: ParamSchema<P>;
  /** The `blis run` flag of each parameter (no bundle keys: latency resolves before the policy bundle is read). */
  readonly flags?: readonly Omit<ParamFlag, "bundle">[];
  /** `params`: the parsed parameter values, defaults filled in. */
  resolve(req: LatencyRequest, params: P): Promise<ResolvedLatency>;
}

export const latencyBackends = new Registry<LatencyBackend<object>>("latency model");

/** Backend names offered to users. */
export function listedBackends(): string[] {
  return latencyBackends.names().filter((n) => latencyBackends.get(n)!.listed);
}

/** Every registered backend's parameter flags, each with the schema holding its default. */
export function latencyParamFlags(): { flag: ParamFlag; schema: ParamSchema<unknown> }[] {
  return latencyBackends.names().flatMap((n) => {
    const b = latencyBackends.get(n)!;
    const schema = b.params;
    return schema === undefined ? [] : (b.flags ?? []).map((flag) => ({ flag, schema }));
  });
}
