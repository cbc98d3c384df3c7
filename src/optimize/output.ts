// Results of `blis optimize`: the best configuration as a `blis run` command line and as a policy
// bundle, every evaluation as CSV / JSON, and the convergence table.

import path from "node:path";
import { stringify } from "yaml";
import { RUN_FLAGS } from "../cli/runFlags.js";
import type { RunInput } from "../config/runOptions.js";
import { PolicyBundleSchema } from "../config/policyBundle.js";
import { serializeWorkloadSpec, type WorkloadSpec } from "../workload/index.js";
import { decodeFromRecord, fmtValue, isBetter, type OptimizeResult } from "./search.js";
import { constraintText, inputFor, recordedMetrics, type Evaluated } from "./evaluate.js";
import type { OptimizeSpace, ParamValue } from "./space.js";


// ---------------------------------------------------------------------------------------------
// Command lines

function shellQuote(s: string): string {
  if (/^[A-Za-z0-9_./,:=+@%-]+$/.test(s)) return s;
  if (!/["$`\\!]/.test(s)) return `"${s}"`;
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** `--flag value` words of run options (RUN_FLAGS order), skipping the in-memory workload spec. */
export function flagWords(input: RunInput, skip: ReadonlySet<string> = new Set()): string[] {
  const words: string[] = [];
  const inp = input as Record<string, unknown>;
  for (const f of RUN_FLAGS) {
    const v = inp[f.key];
    if (v === undefined || skip.has(f.key)) continue;
    if (f.key === "horizon" && v === Infinity) continue;
    switch (f.type) {
      case "bool":
        words.push(v === true ? f.flag : `${f.flag}=false`);
        break;
      case "strings":
        for (const s of v as string[]) words.push(f.flag, shellQuote(displayPath(f.key, s)));
        break;
      case "floats":
        words.push(f.flag, (v as number[]).map(String).join(","));
        break;
      default:
        words.push(f.flag, shellQuote(displayPath(f.key, String(v))));
    }
  }
  return words;
}

const PATH_KEYS = new Set(["workloadSpec", "workloadTracesFilepath", "replayTrace", "replayTraceData", "policyConfig", "defaultsFilepath", "modelConfigFolder", "hardwareConfig", "plugin", "report"]);

/** Absolute paths from the space are shown relative to the working directory. */
function displayPath(key: string, v: string): string {
  if (!PATH_KEYS.has(key) || !path.isAbsolute(v)) return v;
  const rel = path.relative(process.cwd(), v);
  return rel === "" ? "." : rel.startsWith("..") ? v : rel;
}

/** Where the best command finds the workload: the space's spec file, or workload.yaml in --out. */
export function workloadFlag(space: OptimizeSpace, outDir: string): { flagPath: string | null; writeInline: string | null } {
  const spec = (space.base as Record<string, unknown>)["workloadSpecObject"] as WorkloadSpec | undefined;
  if (spec === undefined) return { flagPath: null, writeInline: null };
  if (space.specFile !== null) return { flagPath: space.specFile, writeInline: null };
  return { flagPath: path.join(outDir, "workload.yaml"), writeInline: serializeWorkloadSpec(spec) };
}

export function commandLine(input: RunInput, specPath: string | null, extra: string[] = [], skip: ReadonlySet<string> = new Set()): string {
  const inp: Record<string, unknown> = { ...(input as Record<string, unknown>) };
  delete inp["workloadSpecObject"];
  if (specPath !== null) inp["workloadSpec"] = specPath;
  return ["blis", "run", ...flagWords(inp as RunInput, skip), ...extra].join(" ");
}

// ---------------------------------------------------------------------------------------------
// Policy bundle

type Bundle = Record<string, unknown>;

function setIn(b: Bundle, keys: string[], v: unknown): void {
  let o = b;
  for (const k of keys.slice(0, -1)) o = (o[k] ??= {}) as Bundle;
  o[keys[keys.length - 1]!] = v;
}

function listMap(text: string): Record<string, number> {
  const o: Record<string, number> = {};
  for (const piece of text.split(",")) {
    const i = piece.indexOf(":");
    if (i > 0) o[piece.slice(0, i).trim()] = Number(piece.slice(i + 1).trim());
  }
  return o;
}

/** Run option → where it goes in a policy bundle (src/config/policyBundle.ts). */
const BUNDLE_KEYS: Record<string, (b: Bundle, v: unknown) => void> = {
  admissionPolicy: (b, v) => setIn(b, ["admission", "policy"], v),
  admissionLoadThreshold: (b, v) => setIn(b, ["admission", "load_threshold"], v),
  tokenBucketCapacity: (b, v) => setIn(b, ["admission", "token_bucket_capacity"], v),
  tokenBucketRefillRate: (b, v) => setIn(b, ["admission", "token_bucket_refill_rate"], v),
  routingPolicy: (b, v) => setIn(b, ["routing", "policy"], v),
  routingScorers: (b, v) => setIn(b, ["routing", "scorers"], Object.entries(listMap(String(v))).map(([name, weight]) => ({ name, weight }))),
  sloCacheWeights: (b, v) => setIn(b, ["routing", "slo_cache_weights"], listMap(String(v))),
  priorityPolicy: (b, v) => setIn(b, ["priority", "policy"], v),
  sloBaseCritical: (b, v) => setIn(b, ["priority", "base_scores", "critical"], v),
  sloBaseStandard: (b, v) => setIn(b, ["priority", "base_scores", "standard"], v),
  sloBaseSheddable: (b, v) => setIn(b, ["priority", "base_scores", "sheddable"], v),
  sloAgeWeight: (b, v) => setIn(b, ["priority", "age_weight"], v),
  sloThresholdCritical: (b, v) => setIn(b, ["priority", "urgency_thresholds_us", "critical"], v),
  sloThresholdStandard: (b, v) => setIn(b, ["priority", "urgency_thresholds_us", "standard"], v),
  sloThresholdSheddable: (b, v) => setIn(b, ["priority", "urgency_thresholds_us", "sheddable"], v),
  priorityBridge: (b, v) => setIn(b, ["priority", "bridge"], v),
  scheduler: (b, v) => setIn(b, ["scheduler"], v),
  sloPrefillThresholds: (b, v) => setIn(b, ["slo_prefill_thresholds"], listMap(String(v))),
  preemptionPolicy: (b, v) => setIn(b, ["preemption"], v),
};

export interface BestBundle {
  /** The policy bundle of the parameters that have bundle keys ({} when none has). */
  bundle: Bundle;
  /** Run options the bundle sets (drop them from the command that uses --policy-config). */
  covered: Set<string>;
  /** Parameters with a bundle key, and the others with the flag words that set them. */
  inBundle: string[];
  notInBundle: { name: string; words: string[] }[];
}

/** Splits the best point's parameters into a policy bundle and the rest (flags). */
export function bundleFor(space: OptimizeSpace, input: RunInput): BestBundle {
  const inp = input as Record<string, unknown>;
  const bundle: Bundle = {};
  const covered = new Set<string>();
  const inBundle: string[] = [];
  const notInBundle: { name: string; words: string[] }[] = [];
  const put = (key: string): void => {
    BUNDLE_KEYS[key]!(bundle, inp[key]);
    covered.add(key);
  };
  let scorersDone = false;
  for (const p of space.parameters) {
    const t = p.target;
    let keys: string[];
    if (t.kind === "flag") keys = [t.def.key];
    else if (t.kind === "variant") keys = [...new Set(p.categories.flatMap((c) => Object.keys(c.flags)))].filter((k) => inp[k] !== undefined);
    else if (t.kind === "scorer") keys = ["routingScorers"];
    else keys = [];
    const mapped = keys.length > 0 && keys.every((k) => BUNDLE_KEYS[k] !== undefined);
    if (!mapped) {
      let words: string[];
      if (t.kind === "plugin_option") {
        const entry = ((inp["pluginOption"] as string[] | undefined) ?? []).filter((s) => s.startsWith(`${t.option}=`)).pop() ?? "";
        words = ["--plugin-option", shellQuote(entry)];
      } else words = flagWords(Object.fromEntries(keys.map((k) => [k, inp[k]])) as RunInput);
      notInBundle.push({ name: p.name, words });
      continue;
    }
    if (t.kind === "scorer") {
      if (!scorersDone) {
        put("routingScorers");
        if (inp["routingPolicy"] !== undefined) put("routingPolicy");
        scorersDone = true;
      }
    } else for (const k of keys) put(k);
    inBundle.push(p.name);
  }
  const check = PolicyBundleSchema.safeParse(bundle);
  if (!check.success) throw new Error(`optimize: the best policy bundle does not validate: ${check.error.issues[0]?.message ?? ""}`);
  return { bundle, covered, inBundle, notInBundle };
}

// ---------------------------------------------------------------------------------------------
// Tables

function csvCell(v: string): string {
  return /[",\n\r]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v;
}

function raw(v: number | null | undefined): string {
  return v === null || v === undefined ? "" : String(v);
}

function value(v: ParamValue | undefined): string {
  return v === undefined ? "" : String(v);
}

export function renderEvaluationsCsv(res: OptimizeResult): string {
  const { space } = res;
  const metrics = recordedMetrics(space);
  const header = [
    "evaluation",
    "source",
    "feasible",
    ...space.parameters.map((p) => p.name),
    `${space.objective.metric}_mean`,
    ...space.seeds.map((s) => `${space.objective.metric}_seed_${s}`),
    ...space.constraints.map((c, i) => `constraint_${i + 1}_${c.metric}`),
    ...metrics.filter((m) => m !== space.objective.metric).map((m) => `${m}_mean`),
    "reason",
  ];
  const rows = [header];
  const line = (label: string, e: Evaluated): string[] => [
    label,
    e.rec.source,
    e.feasible ? "yes" : "no",
    ...space.parameters.map((p) => value(e.rec.params[p.name])),
    raw(e.objective),
    ...e.perSeed.map(raw),
    ...e.constraints.map((c) => raw(c.value)),
    ...metrics.filter((m) => m !== space.objective.metric).map((m) => raw(e.means[m])),
    e.reason,
  ];
  if (res.baseline !== null) rows.push(line("baseline", res.baseline));
  res.evaluations.forEach((e) => rows.push(line(String(e.rec.index + 1), e)));
  return rows.map((r) => r.map(csvCell).join(",")).join("\n") + "\n";
}

function evalJson(space: OptimizeSpace, e: Evaluated): Record<string, unknown> {
  return {
    evaluation: e.rec.kind === "baseline" ? "baseline" : e.rec.index + 1,
    source: e.rec.source,
    params: e.rec.params,
    feasible: e.feasible,
    reason: e.reason,
    objective: { mean: e.objective, per_seed: Object.fromEntries(space.seeds.map((s, i) => [String(s), e.perSeed[i] ?? null])) },
    constraints: e.constraints.map((c) => ({ metric: c.metric, value: c.value, min: c.min, max: c.max, bound: c.text, ok: c.ok })),
    metrics: e.means,
    runs: e.rec.runs.map((r) => ({ seed: r.seed, status: r.status, error: r.error, metrics: r.metrics, wall_s: r.wall_s })),
  };
}

export function renderEvaluationsJson(res: OptimizeResult, best: BestSummary | null): string {
  const { space } = res;
  return (
    JSON.stringify(
      {
        name: space.name,
        space_hash: space.hash,
        objective: { metric: space.objective.metric, direction: space.objective.direction },
        seeds: space.seeds,
        budget: space.budget,
        initial: space.initial,
        batch: res.batch,
        baseline: res.baseline === null ? null : evalJson(space, res.baseline),
        evaluations: res.evaluations.map((e) => evalJson(space, e)),
        best:
          best === null
            ? null
            : { evaluation: best.e.rec.index + 1, params: best.e.rec.params, objective: best.e.objective, command: best.command, bundle_command: best.bundleCommand, policy_bundle: best.bundle.bundle },
      },
      null,
      2,
    ) + "\n"
  );
}

export interface ConvergenceRow {
  n: number;
  source: string;
  value: number | null;
  feasible: boolean;
  best: number | null;
}

export function convergenceRows(res: OptimizeResult): ConvergenceRow[] {
  let best: number | null = null;
  return res.evaluations.map((e) => {
    if (e.feasible && e.objective !== null && (best === null || isBetter(res.space, e.objective, best))) best = e.objective;
    return { n: e.rec.index + 1, source: e.rec.source, value: e.objective, feasible: e.feasible, best };
  });
}

function table(header: string[], rows: string[][], markdown: boolean): string {
  const widths = header.map((h, j) => Math.max(h.length, ...rows.map((r) => r[j]!.length)));
  const right = (j: number): boolean => j !== 1 && j !== 3;
  const fmtRow = (r: string[]): string => {
    const cells = r.map((c, j) => (right(j) ? c.padStart(widths[j]!) : c.padEnd(widths[j]!)));
    return markdown ? `| ${cells.join(" | ")} |` : cells.join("  ");
  };
  const out = [fmtRow(header)];
  if (markdown) out.push(`|${widths.map((w, j) => (right(j) ? "-".repeat(w + 1) + ":" : "-".repeat(w + 2))).join("|")}|`);
  else out.push(widths.map((w) => "-".repeat(w)).join("  "));
  for (const r of rows) out.push(fmtRow(r));
  return out.join("\n") + "\n";
}

export function renderConvergence(res: OptimizeResult, markdown: boolean): string {
  const m = res.space.objective.metric;
  const rows = convergenceRows(res).map((r) => [
    String(r.n),
    r.source,
    r.value === null ? "-" : fmtValue(r.value),
    r.feasible ? "yes" : "no",
    r.best === null ? "-" : fmtValue(r.best),
  ]);
  if (res.baseline !== null) {
    const b = res.baseline;
    rows.unshift(["baseline", "baseline", b.objective === null ? "-" : fmtValue(b.objective), b.feasible ? "yes" : "no", "-"]);
  }
  return table(["#", "source", m, "feasible", "best so far"], rows, markdown);
}

// ---------------------------------------------------------------------------------------------
// Best configuration

export interface BestSummary {
  e: Evaluated;
  input: RunInput;
  command: string;
  bundle: BestBundle;
  bundleCommand: string;
  bundleYaml: string;
  /** Workload spec text to write to outDir/workload.yaml (inline base specs), or null. */
  workloadYaml: string | null;
}

function pct(v: number, ref: number): string {
  if (ref === 0) return "";
  const p = ((v - ref) / Math.abs(ref)) * 100;
  return `${p >= 0 ? "+" : ""}${p.toFixed(1)}%`;
}

export function summarizeBest(res: OptimizeResult): BestSummary | null {
  const e = res.best;
  if (e === null) return null;
  const { space } = res;
  const input = inputFor(space, decodeFromRecord(space, e.rec));
  if (typeof input === "string") throw new Error(`optimize: the best point cannot be run: ${input}`);
  const wl = workloadFlag(space, res.outDir);
  const command = commandLine(input, wl.flagPath);
  const bundle = bundleFor(space, input);
  const bundlePath = path.join(res.outDir, "best.yaml");
  const bundleCommand = commandLine(input, wl.flagPath, ["--policy-config", shellQuote(displayPath("policyConfig", path.resolve(bundlePath)))], bundle.covered);
  const head: string[] = [
    `# Policy bundle of the best configuration found by blis optimize (search "${space.name}", evaluation #${e.rec.index + 1} of ${res.evaluations.length}).`,
    `# ${space.objective.metric} (${space.objective.direction}, mean over seeds ${space.seeds.join(", ")}): ${fmtValue(e.objective!)}` +
      (res.baseline?.objective != null ? ` (baseline ${fmtValue(res.baseline.objective)}, ${pct(e.objective!, res.baseline.objective)})` : ""),
  ];
  for (const c of e.constraints) head.push(`# constraint ${c.metric} ${c.text}: ${c.value === null ? "-" : fmtValue(c.value)}`);
  if (bundle.inBundle.length === 0) {
    head.push("# None of the searched parameters has a policy-bundle key: this bundle is empty; use the command line below.");
  } else head.push(`# Parameters in this bundle: ${bundle.inBundle.join(", ")}.`);
  if (bundle.notInBundle.length > 0) {
    head.push(`# Not expressible in a bundle (pass as flags): ${bundle.notInBundle.map((x) => `${x.name} = ${x.words.join(" ")}`).join("; ")}.`);
  }
  head.push("# Full command line:", `#   ${command}`, "# With this bundle (explicit flags win over bundle values, so the bundle's settings are not repeated):", `#   ${bundleCommand}`);
  const body = Object.keys(bundle.bundle).length === 0 ? "{}\n" : stringify(bundle.bundle, { lineWidth: 0 });
  return { e, input, command, bundle, bundleCommand, bundleYaml: head.join("\n") + "\n" + body, workloadYaml: wl.writeInline };
}

/** The stdout report. */
export function renderSummary(res: OptimizeResult, best: BestSummary | null): string {
  const { space } = res;
  const m = space.objective.metric;
  const out: string[] = [];
  const nDesign = res.evaluations.filter((e) => e.rec.source === "design").length;
  const nBo = res.evaluations.filter((e) => e.rec.source === "bo").length;
  const nRandom = res.evaluations.length - nDesign - nBo;
  const infeasible = res.evaluations.filter((e) => !e.feasible).length;
  out.push(`=== blis optimize: ${space.name} ===`);
  out.push(`objective: ${space.objective.direction} ${m}, mean over seeds ${space.seeds.join(", ")}`);
  if (m.startsWith("per_slo.")) out.push("(per-SLO-class latencies are in µs; the cluster ttft_*/e2e_* metrics are in ms)");
  for (const c of space.constraints) out.push(`constraint: ${c.metric} ${constraintText(c)}`);
  out.push(
    `evaluations: ${res.evaluations.length} of budget ${space.budget} (${nDesign} Latin-hypercube design, ${nBo} Bayesian${nRandom > 0 ? `, ${nRandom} random` : ""}; ${res.batch} per step), ${infeasible} infeasible`,
  );
  out.push(`simulations run: ${res.simulations}, evaluations reused: ${res.reused}, wall time ${res.wallS.toFixed(1)} s`);
  out.push("");
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
    out.push("No feasible configuration was found" + (res.evaluations.length > 0 ? ` (e.g. #${res.evaluations[0]!.rec.index + 1}: ${res.evaluations[0]!.reason})` : "") + ".");
    return out.join("\n") + "\n";
  }
  const e = best.e;
  out.push(`Best: evaluation #${e.rec.index + 1} (${e.rec.source})`);
  const b = res.baseline?.objective;
  out.push(`  ${m} = ${fmtValue(e.objective!)}${b !== null && b !== undefined ? `  (baseline ${fmtValue(b)}, ${pct(e.objective!, b)})` : ""}`);
  out.push(`  per seed: ${space.seeds.map((s, i) => `${s}: ${e.perSeed[i] === null ? "-" : fmtValue(e.perSeed[i]!)}`).join(", ")}`);
  for (const c of e.constraints) {
    const bounds = [c.min !== null ? `>= ${fmtValue(c.min)}` : "", c.max !== null ? `<= ${fmtValue(c.max)}` : ""].filter((x) => x !== "").join(" and ");
    out.push(`  ${c.metric} = ${c.value === null ? "-" : fmtValue(c.value)}  (${c.text}: ${bounds}) ${c.ok ? "ok" : "VIOLATED"}`);
  }
  out.push(`  ${metricLine(e)}`);
  out.push("  parameters:");
  for (const p of space.parameters) out.push(`    ${p.name} = ${String(e.rec.params[p.name])}`);
  out.push("");
  out.push("Command:");
  out.push(`  ${best.command}`);
  out.push("");
  out.push(`Policy bundle (${path.join(res.outDir, "best.yaml")}):`);
  if (best.bundle.inBundle.length === 0) out.push("  (none of the searched parameters has a policy-bundle key; the bundle is empty — use the command above)");
  else out.push(...best.bundleYaml.split("\n").filter((l) => l !== "" && !l.startsWith("#")).map((l) => `  ${l}`));
  if (best.bundle.notInBundle.length > 0) {
    out.push(`  not in the bundle (flags): ${best.bundle.notInBundle.map((x) => `${x.name} (${x.words.join(" ")})`).join(", ")}`);
  }
  if (best.bundle.inBundle.length > 0) out.push(`  with the bundle: ${best.bundleCommand}`);
  return out.join("\n") + "\n";
}
