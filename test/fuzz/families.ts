// The five kinds of generated cases: `blis run` flag lists, workload specs (--workload-spec),
// policy bundles (--policy-config), sweep plans (`blis sweep`) and search spaces (`blis optimize`).

import fc from "fast-check";
import { DIR, printable, type Family, type FuzzCase } from "./case.js";
import { BUNDLE_KEYS, bundleArb } from "./bundleGen.js";
import { outputPath, type Value } from "./flagValues.js";
import { PLAN_KEYS, planArb, SPACE_KEYS, spaceArb } from "./planGen.js";
import { baseArb, entriesArb, entryParts, LLAMA, runCaseArb } from "./runArgs.js";
import { SPEC_KEYS, specArb } from "./specGen.js";
import { yamlFile, type YamlMix } from "./yamlGen.js";
import { filesCaseArb, pluginCaseArb } from "./specialGen.js";

/** Mostly files that reach the simulator, many with wrong values, some broken. */
const MIX: YamlMix = { clean: 4, wrong: 3, broken: 1 };

const specCaseArb: fc.Arbitrary<FuzzCase> = fc
  .tuple(
    yamlFile(specArb, MIX),
    fc.constantFrom<string[]>(
      ["--model", LLAMA],
      ["--model", "test-model", "--alpha-coeffs", "100,1,100", "--beta-coeffs", "1000,2,1"],
    ),
    fc.constantFrom<string[]>([], [], ["--num-requests", "3"], ["--horizon", "1000000"], ["--seed", "1"]),
    entriesArb(2),
  )
  .map(([spec, model, extra, entries]) => {
    const { tokens, files, dirs, keys } = entryParts(entries);
    const argv = ["run", ...model, "--workload-spec", `${DIR}/spec.yaml`, ...extra, ...tokens];
    return printable({
      family: "spec",
      argv,
      files: [{ name: "spec.yaml", content: spec.text }, ...files],
      dirs,
      keys: [...spec.keys, ...SPEC_KEYS, ...keys],
    });
  });

const POLICY_FLAGS: string[][] = [
  ["--routing-policy", "round-robin"],
  ["--routing-scorers", ""],
  ["--routing-scorers", "queue-depth:1"],
  ["--scheduler", "fcfs"],
  ["--num-instances", "2"],
  ["--admission-policy", "token-bucket"],
  ["--token-bucket-capacity", "0"],
  ["--priority-policy", "slo-tiered"],
];

const bundleCaseArb: fc.Arbitrary<FuzzCase> = fc
  .tuple(yamlFile(bundleArb, MIX), baseArb, fc.subarray(POLICY_FLAGS, { maxLength: 2 }), entriesArb(2))
  .map(([bundle, base, explicit, entries]) => {
    const { tokens, files, dirs, keys } = entryParts(entries);
    const argv = ["run", ...base, "--policy-config", `${DIR}/policy.yaml`, ...explicit.flat(), ...tokens];
    return printable({
      family: "bundle",
      argv,
      files: [{ name: "policy.yaml", content: bundle.text }, ...files],
      dirs,
      keys: [...bundle.keys, ...BUNDLE_KEYS, ...keys],
    });
  });

/** The arguments and required options of the commands: an error may name one that is missing. */
const SWEEP_NAMES = ["plan", "--out"];
const OPTIMIZE_NAMES = ["space", "--out"];

const jobsArb = fc.oneof(
  { weight: 12, arbitrary: fc.constantFrom<string[]>(["--jobs", "1"], ["--jobs", "1"], [], ["--jobs", "2"]) },
  {
    weight: 1,
    arbitrary: fc.constantFrom<string[]>(
      ["--jobs", "0"],
      ["--jobs", "x"],
      ["--jobs", "-1"],
      ["--jobs", "1.5"],
      ["--jobs"],
    ),
  },
);
const OUT: Value = { text: `${DIR}/out`, files: [], dirs: [], keys: [] };
/** --out: a new directory mostly, else any output path, or none. */
const outArb = fc.oneof(
  { weight: 8, arbitrary: fc.constant<Value | null>(OUT) },
  { weight: 2, arbitrary: outputPath("out") },
  { weight: 1, arbitrary: fc.constant(null) },
);
/**
 * --shard and --queue, rarely and only malformed or out of range: a valid shard prints no tables,
 * and a valid queue needs a Redis server (test/queue/ covers both).
 */
const distributeArb = fc.oneof(
  { weight: 20, arbitrary: fc.constant<string[]>([]) },
  {
    weight: 1,
    arbitrary: fc.constantFrom<string[]>(
      ["--shard", "2/2"],
      ["--shard", "0/0"],
      ["--shard", "1"],
      ["--shard", "-1/3"],
      ["--shard", ""],
      ["--queue", "localhost:6379"],
      ["--queue", "http://127.0.0.1:6379"],
      ["--queue", "redis://"],
      ["--queue", "redis://127.0.0.1:6379/x"],
      ["--queue", ""],
    ),
  },
);
/** Quiet mostly; progress lines on stderr, --restart and --report sometimes. */
const switchesArb = fc.record({
  progress: fc.constantFrom(false, false, false, true),
  restart: fc.constantFrom(false, false, true),
  report: fc.constantFrom(false, false, false, true),
});

const sweepCaseArb: fc.Arbitrary<FuzzCase> = fc
  .tuple(
    planArb.chain((p) => yamlFile(fc.constant(p.value), MIX).map((y) => ({ p, y }))),
    outArb,
    jobsArb,
    fc.constantFrom("text", "text", "text", "text", "json", "json", "csv", "csv", "csv", "xml"),
    fc.constantFrom("arg", "arg", "arg", "arg", "arg", "arg", "arg", "flag", "flag", "both", "missing"),
    switchesArb,
    distributeArb,
  )
  .map(([{ p, y }, out, jobs, format, planAt, o, distribute]) => {
    const plan = planAt === "missing" ? `${DIR}/missing.yaml` : `${DIR}/plan.yaml`;
    const argv = [
      "sweep",
      ...(planAt === "flag" ? ["--plan", plan] : [plan]),
      ...(planAt === "both" ? ["--plan", `${DIR}/other.yaml`] : []),
    ];
    if (out !== null) argv.push("--out", out.text);
    argv.push(...jobs, "--format", format);
    if (!o.progress) argv.push("--no-progress");
    if (o.restart) argv.push("--restart");
    if (o.report) argv.push("--report");
    argv.push(...distribute);
    const files = [{ name: "plan.yaml", content: y.text }, ...p.files, ...(out?.files ?? [])];
    return printable({
      family: "sweep",
      argv,
      files,
      dirs: [...p.dirs, ...(out?.dirs ?? [])],
      keys: [...y.keys, ...PLAN_KEYS, ...p.keys, ...SWEEP_NAMES],
    });
  });

const optimizeCaseArb: fc.Arbitrary<FuzzCase> = fc
  .tuple(
    spaceArb.chain((s) => yamlFile(fc.constant(s.value), MIX).map((y) => ({ s, y }))),
    outArb,
    jobsArb,
    fc.constantFrom("arg", "arg", "arg", "arg", "arg", "arg", "arg", "arg", "missing", "none"),
    switchesArb,
  )
  .map(([{ s, y }, out, jobs, spaceAt, o]) => {
    const argv = [
      "optimize",
      ...(spaceAt === "none" ? [] : [spaceAt === "missing" ? `${DIR}/missing.yaml` : `${DIR}/space.yaml`]),
    ];
    if (out !== null) argv.push("--out", out.text);
    argv.push(...jobs);
    if (!o.progress) argv.push("--no-progress");
    if (o.restart) argv.push("--restart");
    const files = [{ name: "space.yaml", content: y.text }, ...s.files, ...(out?.files ?? [])];
    return printable({
      family: "optimize",
      argv,
      files,
      dirs: [...s.dirs, ...(out?.dirs ?? [])],
      keys: [...y.keys, ...SPACE_KEYS, ...s.keys, ...OPTIMIZE_NAMES],
    });
  });

export const FAMILIES: Record<Family, fc.Arbitrary<FuzzCase>> = {
  run: runCaseArb,
  spec: specCaseArb,
  bundle: bundleCaseArb,
  sweep: sweepCaseArb,
  optimize: optimizeCaseArb,
  files: filesCaseArb,
  plugin: pluginCaseArb,
};
