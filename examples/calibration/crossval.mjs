#!/usr/bin/env node
// How well do fitted coefficients predict what they were not fitted on?
//
// Two studies over the H100 experiments of data/calibration/experiments.json, both with the
// library's `calibration.fit` (the same code as `blis fit`):
//
//   lomo     leave one model out: for each model, fit on the experiments of every other model and
//            predict the held-out model's experiments; compared with the bundled trained-physics
//            coefficients on the same experiments.
//   stages   per deployment: on each experiment with two load stages, fit on the first stage
//            alone and predict the second.
//
// Prints markdown tables on stdout, progress on stderr. Run after building:
//
//   npm run build && node examples/calibration/crossval.mjs [options]
//
// Options:
//   --study lomo|stages|both    which study (default both)
//   --terms decode_context      also fit the extra decode-context term (default: the bundled form)
//   --iterations N              least-squares rounds per fit (default 8, as `blis fit`)
//   --jobs N                    worker processes per fit (default: one per CPU)
//   --only A,B                  only models / experiments whose id contains one of these
//   --json FILE                 also write every number to FILE
//   --seed N                    seed of the generated arrivals of aggregate-only runs (default 42)
//   --latency-model NAME        trained-physics (default) or kernels (fits its overhead terms only)

import fs from "node:fs";
import os from "node:os";
import { calibration } from "../../dist/src/index.js";

const {
  loadInputs,
  readExperimentsFile,
  unsupportedReason,
  BUNDLED_EXPERIMENTS,
  fit,
  startCoefficients,
  DEFAULT_FREE,
  paramIndex,
  DECODE_CONTEXT,
  beta,
  KERNELS_LAYOUT,
  freeParams,
  kernelStart,
} = calibration;

function parseArgs(argv) {
  const a = {
    study: "both",
    terms: "",
    iterations: 8,
    jobs: os.availableParallelism?.() ?? os.cpus().length,
    only: [],
    json: "",
    seed: 42,
    latencyModel: "trained-physics",
  };
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i];
    const val = () => {
      if (i + 1 >= argv.length) throw new Error(`${k} needs a value`);
      return argv[++i];
    };
    const int = (min) => {
      const v = val();
      if (!/^\d+$/.test(v) || Number(v) < min) throw new Error(`${k} must be an integer >= ${min}, got "${v}"`);
      return Number(v);
    };
    if (k === "--study") a.study = val();
    else if (k === "--terms") a.terms = val();
    else if (k === "--iterations") a.iterations = int(0);
    else if (k === "--jobs") a.jobs = int(1);
    else if (k === "--only") a.only = val().split(",").filter(Boolean);
    else if (k === "--json") a.json = val();
    else if (k === "--seed") a.seed = int(0);
    else if (k === "--latency-model") a.latencyModel = val();
    else throw new Error(`unknown option ${k}`);
  }
  if (!["trained-physics", "kernels"].includes(a.latencyModel))
    throw new Error(`--latency-model must be trained-physics or kernels`);
  if (!["lomo", "stages", "both"].includes(a.study))
    throw new Error(`--study must be lomo, stages or both, got "${a.study}"`);
  if (a.terms !== "" && a.terms !== "decode_context")
    throw new Error(`--terms: unknown term "${a.terms}" (valid: decode_context)`);
  return a;
}

const args = (() => {
  try {
    return parseArgs(process.argv.slice(2));
  } catch (e) {
    process.stderr.write(`error: ${e.message}\n`);
    process.exit(1);
  }
})();

const log = (line) => process.stderr.write(line + "\n");
const entries = readExperimentsFile(BUNDLED_EXPERIMENTS).filter((e) => {
  const why = unsupportedReason(e);
  if (why !== null) log(`skipped ${e.id}: ${why}`);
  return why === null;
});
const modelOf = (e) => e.model.hf_id;
const wanted = (s) => args.only.length === 0 || args.only.some((o) => s.toLowerCase().includes(o.toLowerCase()));
const kernels = args.latencyModel === "kernels";
const free = kernels
  ? freeParams(KERNELS_LAYOUT, undefined, undefined)
  : [
      ...DEFAULT_FREE.map((n) => paramIndex(n, "--params")),
      ...(args.terms === "decode_context" ? [DECODE_CONTEXT] : []),
    ];
const start = kernels ? kernelStart(undefined) : startCoefficients();
const run = kernels ? { latencyModel: "kernels" } : {};
const load = (ids, flag) => loadInputs(ids, { run, seed: args.seed, flag, skipped: [] });

async function runFit(dataIds, holdoutIds, label) {
  log(`${label}: fitting on ${dataIds.length} run(s), predicting ${holdoutIds.length}`);
  const t0 = Date.now();
  const res = await fit({
    data: load(dataIds, "--data"),
    holdout: load(holdoutIds, "--holdout"),
    jobs: args.jobs,
    start,
    free,
    whenUsed: kernels ? [] : [beta(7), beta(10)],
    iterations: args.iterations,
    budget: 0,
    lambda: 1e-3,
    progress: () => undefined,
  });
  log(`${label}: done in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  return res;
}

const median = (xs) => {
  const s = [...xs].filter(Number.isFinite).sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const pct = (x) => (Number.isFinite(x) ? `${(x * 100).toFixed(1)}%` : "-");
const METRICS = ["e2e", "ttft", "itl"];
const errs = (ev) => Object.fromEntries(METRICS.map((k) => [k, ev.errors.meanApe[k]]));

async function lomo() {
  const models = [...new Set(entries.map(modelOf))].filter(
    (m) => wanted(m) || entries.some((e) => modelOf(e) === m && wanted(e.id)),
  );
  const rows = [];
  for (const m of models) {
    const held = entries.filter((e) => modelOf(e) === m).map((e) => e.id);
    const train = entries.filter((e) => modelOf(e) !== m).map((e) => e.id);
    const res = await runFit(train, held, `lomo ${m}`);
    rows.push({
      model: m,
      experiments: held,
      bundled: res.holdoutBefore.map(errs),
      fitted: res.holdoutAfter.map(errs),
      coefficients: res.coefficients,
    });
  }
  return rows;
}

async function stages() {
  const rows = [];
  for (const e of entries.filter((x) => x.workload.stages.length >= 2 && wanted(x.id))) {
    const res = await runFit([`${e.id}#stage0`], [`${e.id}#stage1`], `stages ${e.id}`);
    rows.push({
      experiment: e.id,
      bundled: errs(res.holdoutBefore[0]),
      fitted: errs(res.holdoutAfter[0]),
      fittedStage0: errs(res.after[0]),
      coefficients: res.coefficients,
    });
  }
  return rows;
}

function lomoTable(rows) {
  const out = [
    "### Leave one model out: held-out model, median over its experiments (APE of the mean)",
    "",
    "| held-out model | runs | E2E bundled | E2E fitted | TTFT bundled | TTFT fitted | ITL bundled | ITL fitted |",
    "|---|---:|---:|---:|---:|---:|---:|---:|",
  ];
  const cell = (list, k) => pct(median(list.map((x) => x[k])));
  for (const r of rows)
    out.push(
      `| ${r.model} | ${r.experiments.length} | ${METRICS.map((k) => `${cell(r.bundled, k)} | ${cell(r.fitted, k)}`).join(" | ")} |`,
    );
  const all = (key) => rows.flatMap((r) => r[key]);
  out.push(
    `| **all held-out runs** | ${all("bundled").length} | ${METRICS.map((k) => `**${cell(all("bundled"), k)}** | **${cell(all("fitted"), k)}**`).join(" | ")} |`,
  );
  return out.join("\n");
}

function stagesTable(rows) {
  const out = [
    "### Per deployment: fit on stage 0, predict stage 1 (APE of the stage-1 mean)",
    "",
    "| experiment | E2E bundled | E2E fitted | TTFT bundled | TTFT fitted | ITL bundled | ITL fitted |",
    "|---|---:|---:|---:|---:|---:|---:|",
  ];
  for (const r of rows)
    out.push(`| ${r.experiment} | ${METRICS.map((k) => `${pct(r.bundled[k])} | ${pct(r.fitted[k])}`).join(" | ")} |`);
  const med = (key, k) => pct(median(rows.map((r) => r[key][k])));
  out.push(`| **median** | ${METRICS.map((k) => `**${med("bundled", k)}** | **${med("fitted", k)}**`).join(" | ")} |`);
  return out.join("\n");
}

const report = { seed: args.seed, terms: args.terms, iterations: args.iterations };
const parts = [
  `Latency model ${args.latencyModel}. Fitted parameters: ${free.map((j) => (kernels ? KERNELS_LAYOUT.names : calibration.PARAM_NAMES)[j]).join(", ")} (β8 and β_EP where the data exercises them); ${args.iterations} least-squares rounds; seed ${args.seed}.`,
];
if (args.study !== "stages") {
  report.lomo = await lomo();
  parts.push(lomoTable(report.lomo));
}
if (args.study !== "lomo") {
  report.stages = await stages();
  parts.push(stagesTable(report.stages));
}
process.stdout.write(parts.join("\n\n") + "\n");
if (args.json !== "") fs.writeFileSync(args.json, JSON.stringify(report, null, 2) + "\n");
