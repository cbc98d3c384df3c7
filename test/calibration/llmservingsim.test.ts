// The LLMServingSim example (examples/calibration/llmservingsim/README.md): the committed trace of
// the Qwen3-32B TP2 run replays through the command line with the example's GPU table and
// config.json, and `blis calibrate` compares all 300 requests with their measurements.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { buildProgram } from "../../src/cli/main.js";
import { cli } from "../helpers/cli.js";

const example = (f: string): string =>
  fileURLToPath(new URL(`../../../examples/calibration/llmservingsim/${f}`, import.meta.url));
const HEADER = example("rtxpro6000-qwen3-32b-tp2-sharegpt.yaml");
const DATA = example("rtxpro6000-qwen3-32b-tp2-sharegpt.csv");
const ROWS = 300;

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "blis-llmservingsim-"));
process.on("exit", () => fs.rmSync(dir, { recursive: true, force: true }));

interface ResultEntry {
  request_id: number;
  ttft_us: number;
  e2e_us: number;
  real_ttft_us?: number;
  real_e2e_us?: number;
}

function hasCommand(name: string): boolean {
  const program = buildProgram({ stdout: () => undefined, stderrLine: () => undefined });
  return program.commands.some((c) => c.name() === name);
}

test("the Qwen3-32B TP2 trace replays and calibrates (examples/calibration/llmservingsim)", async () => {
  const dataRows = fs.readFileSync(DATA, "utf8").trim().split("\n").length - 1;
  assert.equal(dataRows, ROWS, "trace rows");

  const results = path.join(dir, "results.json");
  // The README's command: engine settings of RTXPRO6000-Qwen3-32B.meta.json, horizon past the last token.
  const replay = await cli([
    "replay",
    "--trace-header",
    HEADER,
    "--trace-data",
    DATA,
    "--model",
    "qwen/qwen3-32b",
    "--hardware",
    "RTXPRO6000",
    "--tp",
    "2",
    "--hardware-config",
    example("hardware_config.json"),
    "--model-config-folder",
    example("qwen3-32b"),
    "--max-num-seqs",
    "128",
    "--max-num-batched-tokens",
    "2048",
    "--gpu-memory-utilization",
    "0.9",
    "--horizon",
    "600000000",
    "--results-path",
    results,
  ]);
  assert.equal(replay.code, 0, replay.stderr.join("\n"));
  assert.match(replay.stdout, /=== Simulation Metrics ===/);

  const entries = JSON.parse(fs.readFileSync(results, "utf8")) as ResultEntry[];
  assert.equal(entries.length, ROWS, "one result per trace row");
  for (const e of entries) {
    assert.ok(Number.isFinite(e.ttft_us) && e.ttft_us > 0, `request ${e.request_id}: ttft_us ${e.ttft_us}`);
    assert.ok(Number.isFinite(e.e2e_us) && e.e2e_us > 0, `request ${e.request_id}: e2e_us ${e.e2e_us}`);
    assert.ok(e.e2e_us >= e.ttft_us, `request ${e.request_id}: E2E below TTFT`);
    assert.ok(e.real_ttft_us !== undefined && e.real_ttft_us > 0, `request ${e.request_id}: measured TTFT kept`);
  }

  if (!hasCommand("calibrate")) return;
  const cal = await cli([
    "calibrate",
    "--trace-header",
    HEADER,
    "--trace-data",
    DATA,
    "--sim-results",
    results,
    "--json",
  ]);
  assert.equal(cal.code, 0, cal.stderr.join("\n"));
  const report = JSON.parse(cal.stdout) as {
    metrics: Record<string, { count: number; workload_level: { real_mean: number } }>;
  };
  assert.equal(report.metrics["ttft"]?.count, ROWS, "TTFT pairs");
  assert.equal(report.metrics["e2e"]?.count, ROWS, "E2E pairs");
  // Measured means as published in data/calibration/experiments.json (ms): TTFT 36905.2, E2E 90408.
  assert.ok(Math.abs(report.metrics["ttft"]!.workload_level.real_mean / 1000 - 36905.2) < 1, "measured TTFT mean");
  assert.ok(Math.abs(report.metrics["e2e"]!.workload_level.real_mean / 1000 - 90408.06) < 1, "measured E2E mean");
});
