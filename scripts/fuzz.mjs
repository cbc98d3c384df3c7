// `npm run fuzz`: the CLI fuzz test of test/fuzz/ at full size (100,000 cases by default), after a
// build. Every family runs even when another one fails; the exit status is 1 when any failed.
//
//   npm run fuzz -- [--runs N] [--seed S] [--family run|spec|bundle|sweep|optimize|files|plugin|signal] [--path P]
// [--collect]
//
// --seed defaults to a fresh one, printed first; --seed with --path (both printed with a failure)
// replays one counterexample. --collect keeps going after failures and lists each distinct one,
// shrunk. FUZZ_RUNS and FUZZ_SEED set --runs and --seed too.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const { FAMILY_NAMES, collectFailures, fuzzFamily } = await import(path.join(root, "dist/test/fuzz/fuzz.js"));
const { CaseRunner } = await import(path.join(root, "dist/test/fuzz/runner.js"));
const { fuzzSignals } = await import(path.join(root, "dist/test/fuzz/signals.js"));
/** Signal cases start a real process each and wait for it: a few hundredths of the total. */
const ALL_FAMILIES = [...FAMILY_NAMES, "signal"];

/** Shares of the cases: sweeps and searches start worker processes, so they get fewer. */
const SHARE = {
  run: 0.578,
  spec: 0.16,
  bundle: 0.13,
  sweep: 0.03,
  optimize: 0.03,
  files: 0.035,
  plugin: 0.035,
  signal: 0.002,
};

const { values } = parseArgs({
  options: {
    runs: { type: "string", default: process.env.FUZZ_RUNS ?? "100000" },
    seed: { type: "string", default: process.env.FUZZ_SEED ?? String(Date.now() % 2 ** 31) },
    family: { type: "string" },
    path: { type: "string" },
    collect: { type: "boolean", default: false },
  },
});
const runs = Number(values.runs);
const seed = Number(values.seed);
if (!Number.isSafeInteger(runs) || runs < 1 || !Number.isSafeInteger(seed)) {
  console.error("error: --runs must be a positive integer and --seed an integer");
  process.exit(1);
}
if (values.family !== undefined && !ALL_FAMILIES.includes(values.family)) {
  console.error(`error: --family must be one of ${ALL_FAMILIES.join(", ")}`);
  process.exit(1);
}
const families = values.family !== undefined ? [values.family] : ALL_FAMILIES;
const count = (f) => (values.family !== undefined ? runs : Math.max(1, Math.round(runs * SHARE[f])));

console.log(
  `blis CLI fuzz: seed ${seed}, ${runs} cases${values.path !== undefined ? `, replaying path ${values.path}` : ""}`,
);
const runner = new CaseRunner();
let failed = 0;
const findings = [];
for (const family of families) {
  const t0 = performance.now();
  const n = count(family);
  // With one family (a replay), the seed is used as given; otherwise each family has its own.
  const s = values.family !== undefined ? seed : seed + ALL_FAMILIES.indexOf(family);
  try {
    if (family === "signal")
      await fuzzSignals({ seed: s, numRuns: n, ...(values.path !== undefined ? { path: values.path } : {}) });
    else if (values.collect)
      findings.push(...(await collectFailures(runner, family, s, n, (line) => console.log(line))));
    else
      await fuzzFamily(runner, family, {
        seed: s,
        numRuns: n,
        ...(values.path !== undefined ? { path: values.path } : {}),
      });
    console.log(`${family}: ${n} cases done in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  } catch (e) {
    failed++;
    console.log(`${family}: FAILED\n${e instanceof Error ? e.message : String(e)}\n`);
  }
}
await runner.close();
if (values.collect) {
  console.log(`\n${findings.length} distinct failures:`);
  for (const f of findings) console.log(`  ${f.signature}  (seed ${f.seed}, path ${f.path})`);
}
process.exit(failed > 0 || findings.length > 0 ? 1 : 0);
