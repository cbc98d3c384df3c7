// Inputs that used to be taken silently: a fractional count in a workload spec is truncated as BLIS
// does, but with a warning naming the key and line; an explicitly empty scorer list is refused
// instead of meaning "the defaults".

import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import { cli, clusterBlock } from "../helpers/cli.js";
import { tempFile } from "../sim/helpers.js";

const M = ["--model", "meta-llama/llama-3.1-8b-instruct"];

test("num_requests: 2.5 runs 2 requests and says it truncated", async () => {
  const preset = await cli(["convert", "preset", "--name", "chatbot", "--num-requests", "3"]);
  assert.equal(preset.code, 0);
  const text = preset.stdout.replace(/^num_requests: 3$/m, "num_requests: 2.5");
  assert.notEqual(text, preset.stdout);
  const spec = tempFile(text, ".yaml");
  const line = text.split("\n").findIndex((l) => l.startsWith("num_requests:")) + 1;
  const r = await cli(["run", ...M, "--workload-spec", spec, "--log", "warn"]);
  assert.equal(r.code, 0, r.stderr.join("\n"));
  assert.equal(clusterBlock(r.stdout)["completed_requests"], 2);
  assert.ok(
    r.stderr.some((l) =>
      l.includes(`workload spec: num_requests: 2.5 is not an integer, truncated to 2 (line ${line}, column 1)`),
    ),
    r.stderr.join("\n"),
  );
  // A whole number written as a float is not a truncation.
  fs.writeFileSync(spec, preset.stdout.replace(/^num_requests: 3$/m, "num_requests: 3.0"));
  const whole = await cli(["run", ...M, "--workload-spec", spec, "--log", "warn"]);
  assert.equal(whole.code, 0);
  assert.ok(!whole.stderr.some((l) => l.includes("truncated")));
});

test("an empty --routing-scorers (or PD scorer list) is refused", async () => {
  for (const [flag, extra] of [
    ["--routing-scorers", []],
    ["--routing-scorers", ["--routing-policy", "weighted"]],
    ["--prefill-routing-scorers", []],
  ] as const) {
    const r = await cli(["run", ...M, "--num-requests", "3", ...extra, flag, ""]);
    assert.equal(r.code, 1);
    assert.equal(r.stdout, "");
    assert.equal(
      r.stderr.at(-1),
      `error: ${flag}: empty list (give "name:weight,..." or leave the flag out for the defaults)`,
    );
  }
  const ok = await cli(["run", ...M, "--num-requests", "3", "--routing-scorers", "queue-depth:1"]);
  assert.equal(ok.code, 0, ok.stderr.join("\n"));
});

test("a length stdev of 0 means constant lengths, for prompts and outputs, whatever the minimum", async () => {
  for (const [flags, key, want] of [
    [["--prompt-tokens", "300", "--prompt-tokens-stdev", "0", "--prompt-tokens-min", "1"], "num_prefill_tokens", 300],
    [["--output-tokens", "7", "--output-tokens-stdev", "0"], "num_decode_tokens", 7],
  ] as const) {
    const results = tempFile("", ".json");
    const r = await cli(["run", ...M, "--num-requests", "4", ...flags, "--results-path", results]);
    assert.equal(r.code, 0, r.stderr.join("\n"));
    const recs = (JSON.parse(fs.readFileSync(results, "utf8")) as { requests: Record<string, number>[] }).requests;
    assert.deepEqual(
      recs.map((q) => q[key]),
      [want, want, want, want],
    );
  }
  const wide = await cli(["run", ...M, "--num-requests", "2", "--prompt-tokens-stdev", "100000"]);
  assert.equal(wide.code, 1);
  assert.match(wide.stderr.at(-1)!, /prompt-tokens-stdev should be in range/);
});
