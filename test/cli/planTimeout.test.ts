// timeout_s beyond Node's timer limit (2^31 − 1 ms) used to fire at once and kill every run; plans
// and search spaces refuse it before anything starts.

import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { cli } from "../helpers/cli.js";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "blis-timeout-"));
process.on("exit", () => fs.rmSync(dir, { recursive: true, force: true }));

const PLAN = (t: string): string => `name: t
seeds: [1]
timeout_s: ${t}
base:
  flags:
    model: meta-llama/llama-3.1-8b-instruct
    num-requests: 3
    log: error
axes:
  - name: n
    flag: num-instances
    values: [1]
`;

test("sweep: timeout_s above 2147483 s is refused with the line", async () => {
  for (const t of ["1e300", "2147484"]) {
    const plan = path.join(dir, `plan-${t}.yaml`);
    fs.writeFileSync(plan, PLAN(t));
    const out = path.join(dir, `out-${t}`);
    const r = await cli(["sweep", plan, "--out", out, "--jobs", "1", "--no-progress"]);
    assert.equal(r.code, 2);
    assert.equal(r.stdout, "");
    assert.match(
      r.stderr.at(-1)!,
      new RegExp(`^error: .*plan-${t}\\.yaml:3:12: timeout_s: at most 2147483 seconds \\(about 24\\.8 days\\), got `),
    );
    assert.equal(fs.existsSync(path.join(out, "runs.jsonl")), false);
  }
  const plan = path.join(dir, "plan-ok.yaml");
  fs.writeFileSync(plan, PLAN("2147483"));
  const ok = await cli(["sweep", plan, "--out", path.join(dir, "ok"), "--jobs", "1", "--no-progress"]);
  assert.equal(ok.code, 0, ok.stderr.join("\n"));
  assert.match(ok.stdout, /\bok\b|completed/);
});
