// Fit outputs beside the coefficient file (docs/calibration.md "Fit"): the kernels model's file and
// flags, and the table of fitted parameters with their units and standard errors.

import { stringify } from "yaml";
import type { Coefficients } from "../../latency/backends/backend.js";
import { BUNDLED_KERNEL_OVERHEADS } from "../../util/paths.js";
import { loadKernelCoefficients } from "../../latency/kernels/coefficients.js";
import type { ParamLayout } from "./layout.js";

const round = (v: number): number => Number(v.toPrecision(10));

/** The kernels model's starting overheads: a `--start` file's kernels_coefficients, else the bundled ones. */
export function kernelStart(file: string | undefined): Coefficients {
  const k =
    file === undefined
      ? loadKernelCoefficients(BUNDLED_KERNEL_OVERHEADS, "bundled kernels overheads")
      : loadKernelCoefficients(file, "--start");
  return { alpha: k.alpha_coeffs, beta: k.beta_coeffs };
}

export function kernelFileText(c: Coefficients, summary: Record<string, unknown>): string {
  const block = { alpha_coeffs: c.alpha.map(round), beta_coeffs: c.beta.map(round) };
  return (
    '# Kernels-model overhead terms fitted by `blis fit --latency-model kernels` (docs/calibration.md "Fit").\n' +
    "# beta_coeffs: step_us, layer_us, request_us, token_us. Use with: blis run --latency-model kernels --latency-coeffs <this file>\n" +
    stringify({ kernels_coefficients: block, fit: summary }, { lineWidth: 0 })
  );
}

export function kernelFlags(c: Coefficients): string {
  return `--latency-model kernels --alpha-coeffs ${c.alpha.map(round).join(",")} --beta-coeffs ${c.beta.map(round).join(",")}`;
}

const UNITS: Record<string, string> = {
  alpha0: "µs per request (queueing)",
  alpha1: "µs per request with output",
  alpha2: "µs per output token",
  step_us: "µs per step",
  layer_us: "µs per layer per step",
  request_us: "µs per scheduled request per step",
  token_us: "µs per output token per step",
  beta5: "µs per layer per step",
  beta6: "µs per scheduled request per step",
  beta7: "µs per step",
  beta8: "µs per MoE layer per step",
  decode_context: "µs per layer per 1000 decode-context tokens",
  beta0: "µs per step",
  beta1: "µs per prompt token",
  beta2: "µs per decode token",
};

function unitOf(layout: ParamLayout, name: string): string {
  if (layout.model === "blackbox" && name.startsWith("alpha")) return name === "alpha1" ? "µs per prompt token" : "µs";
  return UNITS[name] ?? "× its roofline time";
}

const fmt = (v: number): string => (Number.isFinite(v) ? Number(v.toPrecision(4)).toString() : "undetermined");

/** Markdown: each fitted parameter with its unit and approximate standard error. */
export function parameterTable(
  layout: ParamLayout,
  rows: readonly { name: string; value: number; stderr: number }[],
): string {
  const lines = [
    "## Fitted parameters",
    "",
    "| parameter | value | ± (approx. std. error) | unit |",
    "|---|---:|---:|---|",
  ];
  for (const r of rows) lines.push(`| ${r.name} | ${fmt(r.value)} | ${fmt(r.stderr)} | ${unitOf(layout, r.name)} |`);
  return lines.join("\n") + "\n";
}
