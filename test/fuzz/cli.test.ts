// CLI fuzz test: 5,000 generated command lines and input files (run flags, workload specs, policy
// bundles, sweep plans, search spaces), each run in-process in a worker thread with a time limit.
// Every outcome must be exit 0 with well-formed output, or exit 1 with one `error:` line naming
// the bad item, an empty stdout and nothing written (oracle.ts lists the documented exceptions).
// `npm run fuzz` runs 100,000 cases (scripts/fuzz.mjs); FC_SEED picks another seed here.

import { after, test } from "node:test";
import { FC_SEED } from "../helpers/fc.js";
import type { Family } from "./case.js";
import { FAMILY_NAMES, fuzzFamily } from "./fuzz.js";
import { CaseRunner } from "./runner.js";

/** Cases per family, 5,000 in all: sweeps and searches start worker processes, so fewer of them. */
const RUNS: Record<Family, number> = {
  run: 3400,
  spec: 650,
  bundle: 530,
  sweep: 60,
  optimize: 60,
  files: 150,
  plugin: 150,
};

const runner = new CaseRunner();
after(() => runner.close());

for (const [i, family] of FAMILY_NAMES.entries()) {
  test(`fuzz: ${RUNS[family]} ${family} cases exit 0 with well-formed output or 1 with one error line`, async () => {
    await fuzzFamily(runner, family, { seed: FC_SEED + i, numRuns: RUNS[family] });
  });
}
