import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import { cli } from "../helpers/cli.js";
import { tempFile } from "../sim/helpers.js";

const RUN = ["run", "--model", "meta-llama/llama-3.1-8b-instruct", "--num-requests", "40", "--rate", "30"];

test("blis goodput: each run's own goodput, recomputed goodput with targets, errors naming the file", async () => {
  const a = tempFile("", ".json");
  const b = tempFile("", ".json");
  assert.equal((await cli([...RUN, "--slo-ttft", "default=10s", "--results-path", a])).code, 0);
  assert.equal((await cli([...RUN, "--results-path", b])).code, 0);
  const own = await cli(["goodput", a]);
  assert.equal(own.code, 0, own.stderr.join("\n"));
  const lines = own.stdout.trimEnd().split("\n");
  assert.match(lines[0]!, /^run\s+class\s+requests\s+attainment\s+goodput \(req\/s\)$/);
  assert.match(lines[2]!, /\s+default\s+40\s+1\.0000\s+\d+\.\d{3}$/);
  const none = await cli(["goodput", a, b]);
  assert.equal(none.code, 1);
  assert.equal(none.stderr.at(-1), `error: goodput: ${b} has no goodput (run with --slo-ttft/--slo-itl/--slo-e2e, or give targets here)`);
  const strict = await cli(["goodput", a, b, "--slo-ttft", "default=1us"]);
  assert.equal(strict.code, 0, strict.stderr.join("\n"));
  const rows = strict.stdout.trimEnd().split("\n").slice(2);
  assert.equal(rows.length, 2);
  for (const r of rows) assert.match(r, /\s+default\s+40\s+0\.0000\s+0\.000$/);
  const junk = tempFile("{}", ".json");
  assert.equal(
    (await cli(["goodput", junk])).stderr.at(-1),
    `error: goodput: ${junk} is not a results file (JSON from blis run --results-path)`,
  );
  assert.match((await cli(["goodput", a, "--slo-e2e", "x"])).stderr.at(-1)!, /^error: --slo-e2e: invalid pair "x"/);
  assert.ok(fs.existsSync(a));
});
