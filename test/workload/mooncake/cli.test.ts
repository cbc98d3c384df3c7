// `blis convert mooncake` and runs of the spec it writes: malformed lines stop everything with
// exit status 1 before anything is simulated; good traces run deterministically.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { cli, clusterBlock } from "../../helpers/cli.js";
import { traceFile } from "./helpers.js";

const M = ["--model", "meta-llama/llama-3.1-8b-instruct"];
const GOOD = [
  { timestamp: 0, input_length: 1100, output_length: 20, hash_ids: [1, 2, 3] },
  { timestamp: 300, input_length: 1200, output_length: 30, hash_ids: [1, 2, 4] },
  { timestamp: 900, input_tokens: 300, output_tokens: 5, session_id: "s", turn: 1 },
];

test("convert mooncake writes a spec that runs the trace, twice byte-identically", async () => {
  const file = traceFile(GOOD.map((l) => JSON.stringify(l)));
  const conv = await cli(["convert", "mooncake", file, "--trace-block-size", "512", "--time-scale", "0.5"]);
  assert.equal(conv.code, 0, conv.stderr.join("\n"));
  assert.match(
    conv.stdout,
    /mooncake_trace:\n {2}path: .*\n {2}block_size: 512\n {2}time_scale: 0\.5\n {2}concurrency: 0\n/,
  );
  const spec = path.join(path.dirname(file), "spec.yaml");
  fs.writeFileSync(spec, conv.stdout);
  const a = await cli(["run", ...M, "--workload-spec", spec]);
  assert.equal(a.code, 0, a.stderr.join("\n"));
  assert.equal(clusterBlock(a.stdout)["completed_requests"], 3);
  const b = await cli(["run", ...M, "--workload-spec", spec]);
  assert.equal(b.stdout, a.stdout);
});

test("a malformed line: FILE:LINE on stderr, exit 1, nothing simulated or printed", async () => {
  const file = traceFile([JSON.stringify(GOOD[0]), '{"timestamp": 5, "input_length": 10}']);
  const conv = await cli(["convert", "mooncake", file]);
  assert.equal(conv.code, 1);
  assert.equal(conv.stdout, "");
  assert.ok(
    conv.stderr.some((l) => l.includes(`${file}:2: missing output_length or output_tokens`)),
    conv.stderr.join("\n"),
  );
  const spec = path.join(path.dirname(file), "spec.yaml");
  fs.writeFileSync(spec, `version: "2"\nseed: 1\nmooncake_trace:\n  path: ${file}\n`);
  const run = await cli(["run", ...M, "--workload-spec", spec]);
  assert.equal(run.code, 1);
  assert.equal(run.stdout, "");
  assert.ok(
    run.stderr.some((l) => l.includes(`${file}:2: missing output_length`)),
    run.stderr.join("\n"),
  );
});

test("a wrong trace block size, bad flags and a spec mixing sources are refused", async () => {
  const file = traceFile([JSON.stringify(GOOD[0])]);
  const wrong = await cli(["convert", "mooncake", file, "--trace-block-size", "256"]);
  assert.equal(wrong.code, 1);
  assert.ok(
    wrong.stderr.some((l) =>
      l.includes(`${file}:1: 3 hash_ids for 1100 input tokens; at trace block size 256 they need 5`),
    ),
  );
  for (const [flag, value] of [
    ["--trace-block-size", "0"],
    ["--time-scale", "-1"],
    ["--concurrency", "-2"],
  ] as const) {
    const r = await cli(["convert", "mooncake", file, flag, value]);
    assert.equal(r.code, 1, `${flag} ${value}`);
    assert.ok(
      r.stderr.some((l) => l.includes(flag)),
      r.stderr.join("\n"),
    );
  }
  const plain = path.join(path.dirname(file), "plain.yaml");
  fs.writeFileSync(plain, `version: "2"\nmooncake_trace: { path: ${file} }\n`);
  const rate = await cli(["run", ...M, "--workload-spec", plain, "--rate", "5"]);
  assert.equal(rate.code, 1);
  assert.ok(
    rate.stderr.some((l) => l.includes("--rate cannot be used with a mooncake_trace workload spec")),
    rate.stderr.join("\n"),
  );
  const spec = path.join(path.dirname(file), "mixed.yaml");
  fs.writeFileSync(
    spec,
    `version: "2"\naggregate_rate: 1\nnum_requests: 3\nmooncake_trace: { path: ${file} }\nclients:\n  - { id: c, rate_fraction: 1, arrival: { process: poisson }, input_distribution: { type: constant, params: { value: 5 } }, output_distribution: { type: constant, params: { value: 5 } } }\n`,
  );
  const mixed = await cli(["run", ...M, "--workload-spec", spec]);
  assert.equal(mixed.code, 1);
  assert.ok(
    mixed.stderr.some((l) => l.includes("mooncake_trace is the whole workload; remove clients")),
    mixed.stderr.join("\n"),
  );
});
