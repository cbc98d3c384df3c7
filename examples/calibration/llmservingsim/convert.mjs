#!/usr/bin/env node
// Converts the two LLMServingSim request logs of data/calibration/llmservingsim/ into trace v2
// (header YAML + data CSV) next to this script, for `blis replay` and `blis calibrate`.
//
// Run after building:  npm run build && node examples/calibration/llmservingsim/convert.mjs
//
// The outputs are committed, so running this is only needed after the source CSVs or the
// converter change. Each row becomes one request: send = arrival = the engine queue entry
// (queued_us), first/last chunk = first/last token, as in LLMServingSim's own TTFT and E2E
// (data/calibration/README.md, "Definitions"). The header carries no `server` block: the runs
// did not record block_size and max_model_len, which that block requires.

import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { traceFromEngineCsv } from "../../../dist/src/calibration/measuredCsv.js";
import { exportTraceV2 } from "../../../dist/src/workload/trace/traceV2.js";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const SRC = path.resolve(HERE, "..", "..", "..", "data", "calibration", "llmservingsim");

/** Source run (file stem under data/calibration/llmservingsim/) → output stem (experiments.json id). */
const RUNS = [
  ["RTXPRO6000-Qwen3-32B", "rtxpro6000-qwen3-32b-tp2-sharegpt"],
  ["RTXPRO6000-Qwen3-30B-A3B-Instruct-2507", "rtxpro6000-qwen3-30b-a3b-dp2-ep-sharegpt"],
];

for (const [stem, id] of RUNS) {
  const csvPath = path.join(SRC, `${stem}.csv`);
  const meta = JSON.parse(fs.readFileSync(path.join(SRC, `${stem}.meta.json`), "utf8"));
  const trace = traceFromEngineCsv(fs.readFileSync(csvPath, "utf8"), csvPath);
  trace.header.created_at = meta.started_at;
  const header = path.join(HERE, `${id}.yaml`);
  const data = path.join(HERE, `${id}.csv`);
  exportTraceV2(trace, header, data);
  process.stderr.write(
    `${path.relative(process.cwd(), header)} + .csv: ${trace.records.length} requests (${meta.model})\n`,
  );
}
