// The stdout report of `blis optimize`, and the result renderers the command writes to --out.

import path from "node:path";
import type { BestSummary } from "./best.js";
import { constraintText, recordedMetrics, type Evaluated } from "./evaluate.js";
import { fmtValue, pct } from "./format.js";
import type { OptimizeResult } from "./search.js";
import { renderConvergence } from "./tables.js";

// The command imports every renderer of its result files from this one module.
export { summarizeBest, type BestSummary } from "./best.js";
export { renderConvergence, renderEvaluationsCsv, renderEvaluationsJson } from "./tables.js";

/** The report's head: what was searched, under which constraints, and how many evaluations it took. */
function searchLines(res: OptimizeResult): string[] {
  const { space } = res;
  const m = space.objective.metric;
  const out: string[] = [];
  const nDesign = res.evaluations.filter((e) => e.rec.source === "design").length;
  const nBo = res.evaluations.filter((e) => e.rec.source === "bo").length;
  const nRandom = res.evaluations.length - nDesign - nBo;
  const infeasible = res.evaluations.filter((e) => !e.feasible).length;
  out.push(`=== blis optimize: ${space.name} ===`);
  out.push(`objective: ${space.objective.direction} ${m}, mean over seeds ${space.seeds.join(", ")}`);
  if (m.startsWith("per_slo."))
    out.push("(per-SLO-class latencies are in µs; the cluster ttft_*/e2e_* metrics are in ms)");
  for (const c of space.constraints) out.push(`constraint: ${c.metric} ${constraintText(c)}`);
  out.push(
    `evaluations: ${res.evaluations.length} of budget ${space.budget} (${nDesign} Latin-hypercube design, ${nBo} Bayesian${nRandom > 0 ? `, ${nRandom} random` : ""}; ${res.batch} per step), ${infeasible} infeasible`,
  );
  if (res.stoppedEarly !== null) out.push(`stopped early: ${res.stoppedEarly}`);
  // Wall time goes to stderr only: stdout is the same for the same inputs.
  out.push(`simulations run: ${res.simulations}, evaluations reused: ${res.reused}`);
  out.push("");
  return out;
}

/** One constraint of the best evaluation: its value, its bounds and whether it holds. */
function constraintLine(c: Evaluated["constraints"][number]): string {
  const bounds = [c.min !== null ? `>= ${fmtValue(c.min)}` : "", c.max !== null ? `<= ${fmtValue(c.max)}` : ""]
    .filter((x) => x !== "")
    .join(" and ");
  return `  ${c.metric} = ${c.value === null ? "-" : fmtValue(c.value)}  (${c.text}: ${bounds}) ${c.ok ? "ok" : "VIOLATED"}`;
}

/** The stdout report. */
export function renderSummary(res: OptimizeResult, best: BestSummary | null): string {
  const { space } = res;
  const m = space.objective.metric;
  const out: string[] = searchLines(res);
  const metricLine = (e: Evaluated): string =>
    recordedMetrics(space)
      .map((k) => `${k}=${e.means[k] === null || e.means[k] === undefined ? "-" : fmtValue(e.means[k]!)}`)
      .join("  ");
  if (res.baseline !== null) {
    out.push("Baseline:");
    out.push(`  ${metricLine(res.baseline)}${res.baseline.feasible ? "" : `  (infeasible: ${res.baseline.reason})`}`);
    out.push("");
  }
  out.push("Convergence:");
  out.push(renderConvergence(res, false).trimEnd());
  out.push("");
  if (best === null) {
    out.push(
      "No feasible configuration was found" +
        (res.evaluations.length > 0
          ? ` (e.g. #${res.evaluations[0]!.rec.index + 1}: ${res.evaluations[0]!.reason})`
          : "") +
        ".",
    );
    return out.join("\n") + "\n";
  }
  const e = best.e;
  out.push(`Best: evaluation #${e.rec.index + 1} (${e.rec.source})`);
  const b = res.baseline?.objective;
  out.push(
    `  ${m} = ${fmtValue(e.objective!)}${b !== null && b !== undefined ? `  (baseline ${fmtValue(b)}, ${pct(e.objective!, b)})` : ""}`,
  );
  out.push(
    `  per seed: ${space.seeds.map((s, i) => `${s}: ${e.perSeed[i] === null ? "-" : fmtValue(e.perSeed[i]!)}`).join(", ")}`,
  );
  for (const c of e.constraints) out.push(constraintLine(c));
  out.push(`  ${metricLine(e)}`);
  out.push("  parameters:");
  for (const p of space.parameters) out.push(`    ${p.name} = ${String(e.rec.params[p.name])}`);
  out.push("");
  out.push("Command:");
  out.push(`  ${best.command}`);
  out.push("");
  out.push(`Policy bundle (${path.join(res.outDir, "best.yaml")}):`);
  if (best.bundle.inBundle.length === 0)
    out.push(
      "  (none of the searched parameters has a policy-bundle key; the bundle is empty — use the command above)",
    );
  else
    out.push(
      ...best.bundleYaml
        .split("\n")
        .filter((l) => l !== "" && !l.startsWith("#"))
        .map((l) => `  ${l}`),
    );
  if (best.bundle.notInBundle.length > 0) {
    out.push(
      `  not in the bundle (flags): ${best.bundle.notInBundle.map((x) => `${x.name} (${x.words.join(" ")})`).join(", ")}`,
    );
  }
  if (best.bundle.inBundle.length > 0) out.push(`  with the bundle: ${best.bundleCommand}`);
  return out.join("\n") + "\n";
}
