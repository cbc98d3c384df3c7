// Which latency backend a run uses (docs/latency.md "Choosing a backend"): an explicit
// `--latency-model` wins; the seed-era signals (`--roofline`, `--vllm-version`, three betas)
// keep their seed behavior; everything else runs kernels where the kernel tables cover the GPU,
// trained-physics elsewhere.

import { UserError } from "../../util/errors.js";
import { latencyBackends, listedBackends } from "./backend.js";

export interface BackendSignals {
  /** `--latency-model`, or null when not given. */
  latencyModel: string | null;
  roofline: boolean;
  /** `--vllm-version`, "" when not given. */
  vllmVersion: string;
  alpha: readonly number[] | null;
  beta: readonly number[] | null;
}

export interface BackendChoice {
  name: string;
  /** Chosen by default rather than by the user. */
  implicit: boolean;
}

export function selectBackend(s: BackendSignals): BackendChoice {
  if (s.latencyModel !== null) {
    if (!latencyBackends.has(s.latencyModel)) {
      throw new UserError(`unknown --latency-model "${s.latencyModel}"; valid options: ${listedBackends().join(", ")}`);
    }
    if (s.roofline) {
      throw new UserError(
        "--roofline cannot be combined with --latency-model: --roofline selects the seed-era roofline formula, --latency-model roofline today's",
      );
    }
    return { name: s.latencyModel, implicit: false };
  }
  if (s.roofline) return { name: "seed-roofline", implicit: false };
  if (s.alpha !== null || s.beta !== null) {
    // Seven or more betas are the trained-physics form; fewer are blackbox (every seed-era command
    // line has three), whose construction checks report a short list as in 2025.
    return { name: s.beta !== null && s.beta.length >= 7 ? "trained-physics" : "blackbox", implicit: false };
  }
  if (s.vllmVersion !== "") return { name: "blackbox", implicit: false };
  // The default: kernels where the tables cover the GPU, else trained-physics (kernelsBackend.ts).
  return { name: "kernels", implicit: true };
}

/**
 * Coefficient flags for the current backends (docs/latency.md "Choosing a backend"): both
 * coefficient lists or neither, each value finite and ≥ 0.
 */
export function checkCoefficientFlags(alpha: readonly number[] | null, beta: readonly number[] | null): void {
  if (alpha !== null && beta === null) {
    throw new UserError(
      "--alpha-coeffs requires --beta-coeffs. Both coefficient sets are needed for coefficient-based estimation",
    );
  }
  if (beta !== null && alpha === null) {
    throw new UserError(
      "--beta-coeffs requires --alpha-coeffs. Both coefficient sets are needed for coefficient-based estimation",
    );
  }
  for (const [flag, xs] of [
    ["--alpha-coeffs", alpha],
    ["--beta-coeffs", beta],
  ] as const) {
    xs?.forEach((x, i) => {
      if (!Number.isFinite(x) || x < 0)
        throw new UserError(`${flag}[${i}] must be a finite non-negative number, got ${x}`);
    });
  }
}
