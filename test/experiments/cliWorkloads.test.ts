// Every shipped example runs through `blis run`, and each workload source is reachable from the CLI.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import { fileURLToPath } from "node:url";
import { cli, clusterBlock } from "../helpers/cli.js";

const path = (p: string) => fileURLToPath(new URL(`../../../${p}`, import.meta.url));
const MODEL = ["--model", "meta-llama/llama-3.1-8b-instruct"];
const examples = fs.readdirSync(path("examples")).filter((f) => f.endsWith(".yaml"));
const isBundle = (f: string) =>
  /^(admission|routing|priority|scheduler):/m.test(fs.readFileSync(path(`examples/${f}`), "utf8"));

for (const f of examples) {
  test(`examples/${f} runs`, async () => {
    const args = isBundle(f)
      ? [
          "run",
          ...MODEL,
          "--policy-config",
          path(`examples/${f}`),
          "--num-instances",
          "3",
          "--num-requests",
          "60",
          "--rate",
          "20",
        ]
      : ["run", ...MODEL, "--workload-spec", path(`examples/${f}`), "--num-requests", "150", "--num-instances", "2"];
    const r = await cli(args);
    assert.equal(r.code, 0, r.stderr.join("\n"));
    assert.ok((clusterBlock(r.stdout)["completed_requests"] as number) > 0);
  });
}

test("trace v2 replay and CSV trace mode run from the CLI", async () => {
  const replay = await cli([
    "run",
    ...MODEL,
    "--replay-trace",
    path("test/fixtures/workload/trace-header.yaml"),
    "--replay-trace-data",
    path("test/fixtures/workload/trace-data.csv"),
  ]);
  assert.equal(replay.code, 0, replay.stderr.join("\n"));
  assert.equal(clusterBlock(replay.stdout)["completed_requests"], 3);
  // Grouped rows get the 50-token replay prefix on top of their input tokens (docs/behavior.md#w12).
  assert.equal(clusterBlock(replay.stdout)["total_input_tokens"], 150 + 100 + 30);
  const missing = await cli(["run", ...MODEL, "--replay-trace", path("test/fixtures/workload/trace-header.yaml")]);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr.at(-1)!, /--replay-trace-data/);
  const csv = await cli([
    "run",
    ...MODEL,
    "--workload",
    "traces",
    "--workload-traces-filepath",
    path("test/fixtures/workload/trace.csv"),
  ]);
  assert.equal(csv.code, 0, csv.stderr.join("\n"));
  const noFile = await cli(["run", ...MODEL, "--workload", "traces"]);
  assert.equal(noFile.code, 1);
  assert.match(noFile.stderr.at(-1)!, /--workload-traces-filepath is required/);
});

test("presets and convert preset reproduce each other", async () => {
  const preset = await cli([
    "run",
    ...MODEL,
    "--workload",
    "chatbot",
    "--rate",
    "5",
    "--num-requests",
    "50",
    "--seed",
    "7",
  ]);
  assert.equal(preset.code, 0);
  const conv = await cli(["convert", "preset", "--name", "chatbot", "--rate", "5", "--num-requests", "50"]);
  assert.equal(conv.code, 0);
  const file = path("dist/test/experiments/chatbot.tmp.yaml");
  fs.writeFileSync(file, conv.stdout);
  const fromSpec = await cli(["run", ...MODEL, "--workload-spec", file, "--seed", "7"]);
  fs.rmSync(file);
  assert.equal(fromSpec.code, 0, fromSpec.stderr.join("\n"));
  const a = clusterBlock(preset.stdout);
  const b = clusterBlock(fromSpec.stdout);
  assert.equal(a["total_input_tokens"], b["total_input_tokens"]);
  assert.equal(a["e2e_mean_ms"], b["e2e_mean_ms"]);
});
