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
  assert.equal(
    none.stderr.at(-1),
    `error: goodput: ${b} has no goodput (run with --slo-ttft/--slo-itl/--slo-e2e, or give targets here)`,
  );
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

test("blis goodput: malformed records and durations name the file and the field; absent classes are warned", async () => {
  const good = tempFile("", ".json");
  assert.equal((await cli([...RUN, "--results-path", good])).code, 0);
  const base = JSON.parse(fs.readFileSync(good, "utf8")) as Record<string, unknown>;
  const variant = (patch: Record<string, unknown>): string => tempFile(JSON.stringify({ ...base, ...patch }), ".json");
  for (const [patch, line] of [
    [{ requests: [null, 5] }, "requests[0]: expected object"],
    [{ requests: "zzz" }, "requests: expected array"],
    [{ requests: [{ ttft_ms: "x", itl_ms: 1, e2e_ms: 1 }] }, "requests[0].ttft_ms: expected number"],
    [{ vllm_estimated_duration_s: -3 }, "vllm_estimated_duration_s: must be >= 0"],
    [
      { per_class: { default: { count: -1, slo_attainment: 0, goodput_rps: 0 } } },
      "per_class.default.count: must be >= 0",
    ],
  ] as const) {
    const f = variant(patch);
    const r = await cli(["goodput", f, "--slo-ttft", "default=1s"]);
    assert.equal(r.code, 1, JSON.stringify(patch));
    assert.equal(r.stdout, "");
    assert.deepEqual(r.stderr, [`error: goodput: ${f}: ${line}`]);
  }
  const absent = await cli(["goodput", good, "--slo-ttft", "standard=50ms"]);
  assert.equal(absent.code, 0);
  assert.deepEqual(absent.stderr, [
    `warning: goodput: ${good} has no request of class "standard" (its classes: default; requests without a class are "default")`,
  ]);
  const twice = await cli(["goodput", good, "--slo-ttft", "critical=100ms,critical=200ms"]);
  assert.equal(twice.code, 1);
  assert.deepEqual(twice.stderr, ['error: --slo-ttft: class "critical" is given twice']);
  const run = await cli([...RUN, "--slo-e2e", "default=1s,default=2s"]);
  assert.equal(run.code, 1);
  assert.equal(run.stderr.at(-1), 'error: --slo-e2e: class "default" is given twice');
});
