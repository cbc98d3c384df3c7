// The fit's outputs (docs/calibration.md "Fit"): the coefficient file and the error tables.

import { stringify } from "yaml";
import type { Coefficients } from "../../latency/backends/backend.js";
import type { ExperimentEval } from "./evaluate.js";
import { objective } from "./fit.js";

const pct = (x: number): string => (Number.isFinite(x) ? `${(x * 100).toFixed(1)}%` : "-");

/** A coefficient file that `--latency-coeffs` reads, with the fit's summary under `fit`. */
export function coefficientFileText(c: Coefficients, summary: Record<string, unknown>): string {
  const block: Record<string, unknown> = { alpha_coeffs: c.alpha.map(round), beta_coeffs: c.beta.map(round) };
  if (c.extra !== undefined && Object.keys(c.extra).length > 0)
    block["extra_terms"] = Object.fromEntries(Object.entries(c.extra).map(([k, v]) => [k, round(v)]));
  return (
    '# Trained-physics coefficients fitted by `blis fit` (docs/calibration.md "Fit").\n' +
    "# Use with: blis run --latency-coeffs <this file> ...\n" +
    stringify({ trained_physics_coefficients: block, fit: summary }, { lineWidth: 0 })
  );
}

const round = (v: number): number => Number(v.toPrecision(10));

/** The same coefficients as run flags (trained-physics, since 11 betas select it). */
export function coefficientFlags(c: Coefficients): string {
  return `--alpha-coeffs ${c.alpha.map(round).join(",")} --beta-coeffs ${c.beta.map(round).join(",")}`;
}

/**
 * Blackbox coefficients: no file flag reads them (--latency-coeffs is trained-physics only), so
 * the file records them with the fit summary and the flags that use them.
 */
export function blackboxFileText(c: Coefficients, summary: Record<string, unknown>, flags: string): string {
  const block = { alpha_coeffs: c.alpha.map(round), beta_coeffs: c.beta.map(round) };
  return (
    '# Blackbox coefficients fitted by `blis fit` (docs/calibration.md "Fit").\n' +
    `# Use with: blis run ${flags} ...\n` +
    stringify({ blackbox_coefficients: block, fit: summary }, { lineWidth: 0 })
  );
}

/** Run flags selecting blackbox with these coefficients (and the KV block count the fit used). */
export function blackboxFlags(c: Coefficients, kvBlocks: number | null): string {
  const kv = kvBlocks !== null ? ` --total-kv-blocks ${kvBlocks}` : "";
  return `--latency-model blackbox ${coefficientFlags(c)}${kv}`;
}

/** Markdown table: per experiment, errors before and after (mean APE of TTFT, E2E, ITL). */
export function errorTable(title: string, before: readonly ExperimentEval[], after: readonly ExperimentEval[]): string {
  const lines = [
    `${title}`,
    "",
    "| experiment | requests | TTFT before | TTFT after | E2E before | E2E after | ITL before | ITL after |",
    "|---|---:|---:|---:|---:|---:|---:|---:|",
  ];
  before.forEach((b, i) => {
    const a = after[i]!;
    const m = (e: ExperimentEval, k: "ttft" | "e2e" | "itl"): string => pct(e.errors.meanApe[k]);
    lines.push(
      `| ${b.id} | ${a.errors.scored} | ${m(b, "ttft")} | ${m(a, "ttft")} | ${m(b, "e2e")} | ${m(a, "e2e")} | ${m(b, "itl")} | ${m(a, "itl")} |`,
    );
  });
  const med = (xs: ExperimentEval[], k: "ttft" | "e2e" | "itl"): string =>
    pct(median(xs.map((e) => e.errors.meanApe[k])));
  lines.push(
    `| median | | ${med([...before], "ttft")} | ${med([...after], "ttft")} | ${med([...before], "e2e")} | ${med([...after], "e2e")} | ${med([...before], "itl")} | ${med([...after], "itl")} |`,
  );
  lines.push(
    "",
    `Objective (root mean Cauchy loss over experiments of the binned TTFT + E2E + ITL error): ${objective(before).toFixed(4)} → ${objective(after).toFixed(4)}`,
    "",
  );
  return lines.join("\n") + "\n";
}

export function median(xs: readonly number[]): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}
