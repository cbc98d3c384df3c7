// `blis calibrate` (docs/calibration.md "Calibrate"): matching and normalization, the statistics,
// the fatal conditions, the loaders and the command line, on the small hand-built trace in
// test/fixtures/calibration/ whose numbers are worked out by hand below.
//
// The fixture (header: warm_up_requests 1, measured_rtt_ms 0.5 → RTT 500 µs):
//   row 0  warm-up                                    → excluded
//   row 1  real TTFT 10000, E2E 50000; input_tokens 90 but server_input_tokens 100 = sim input
//   row 2  real TTFT 20000, E2E 80000; server_input_tokens 130 ≠ sim 128 → token mismatch
//   row 3  no sim result                              → unmatched real
//   row 4  first chunk 2000 µs before the send        → matched AND unmatched, no TTFT/E2E pair
//   row 5  real TTFT 30000, E2E 100000
//   row 6  real TTFT 40000, E2E 150000
//   sim results 9 (no trace row) and 0 (a warm-up row) are unmatched sim results.
// Simulated, after + 500 µs: TTFT 11000, 18000, 33000, 46000; E2E 55000, 84000, 90000, 165000.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import {
  calibrate,
  calibrateWithDetails,
  type CalibrateOptions,
  type SimResultEntry,
} from "../../src/calibration/calibrate.js";
import { loadSimResults, parseSimCacheHitRate, parseSimResults } from "../../src/calibration/simResults.js";
import { loadItlCsv, parseItlCsv } from "../../src/calibration/itlCsv.js";
import { mergeSloTargets, parseDurationMs, parseSloFlag } from "../../src/calibration/goodput.js";
import { mapeAndBias, pearson, percentile, qualityLabel } from "../../src/calibration/stats.js";
import { renderCalibrationTable } from "../../src/calibration/calibrateTable.js";
import {
  emptyTraceRecord,
  loadTraceV2,
  newTraceHeader,
  TRACE_V3_COLUMNS,
  type TraceRecord,
  type TraceV2,
} from "../../src/workload/index.js";
import { UserError } from "../../src/util/errors.js";
import { cli } from "../helpers/cli.js";

const fixture = (f: string): string =>
  fileURLToPath(new URL(`../../../test/fixtures/calibration/${f}`, import.meta.url));
const HEADER = fixture("trace-header.yaml");
const DATA = fixture("trace-data.csv");
const SIM = fixture("sim-results.json");
const ITL = fixture("itl.csv");

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "blis-calibrate-"));
process.on("exit", () => fs.rmSync(dir, { recursive: true, force: true }));
function tmp(name: string, text: string): string {
  const p = path.join(dir, name);
  fs.writeFileSync(p, text);
  return p;
}

const trace = (): TraceV2 => loadTraceV2(HEADER, DATA);
const sim = (): SimResultEntry[] => loadSimResults(SIM);

function close(actual: number | undefined, expected: number, label: string, eps = 1e-9): void {
  assert.ok(
    actual !== undefined && Math.abs(actual - expected) <= eps * Math.max(1, Math.abs(expected)),
    `${label}: ${actual} ≠ ${expected}`,
  );
}

function throwsUser(fn: () => unknown, message: string | RegExp): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof UserError, `expected a UserError, got ${String(e)}`);
    if (typeof message === "string") assert.equal(e.message, message);
    else assert.match(e.message, message);
    return true;
  });
}

test("fixture data CSV lists the 27 base columns in order", () => {
  const first = fs.readFileSync(DATA, "utf8").split("\n")[0]!;
  assert.deepEqual(first.split(","), [...TRACE_V3_COLUMNS]);
});

test("counts: warm-up, matched, unmatched, token mismatches (negative latency stays matched)", () => {
  const { report, details } = calibrateWithDetails(trace(), sim());
  // matched 1, 2, 4, 5, 6; unmatched 3 and 4; num_requests = 5 + 1 + 2 (row 4 counted twice).
  assert.deepEqual(report.trace_info, { num_requests: 8, warm_up_excluded: 1, matched_pairs: 5, token_mismatches: 1 });
  assert.equal(details.unmatchedReal, 2);
  assert.equal(details.negativeLatency, 1);
  assert.equal(details.unmatchedSim, 2, "9, and 0 (a warm-up row's result)");
  assert.deepEqual(details.normalization, { warmUp: 1, networkRttUs: 500, bandwidthMbps: 0 });
  assert.deepEqual(Object.keys(report.metrics), ["e2e", "ttft"]);
  assert.deepEqual(report.config_match, {});
  assert.equal(report.known_limitations.length, 4);
  assert.deepEqual(Object.keys(report), [
    "trace_info",
    "metrics",
    "config_match",
    "known_limitations",
    "ttft_tolerance",
  ]);
});

test("TTFT statistics, worked by hand", () => {
  const m = calibrate(trace(), sim()).metrics.ttft!;
  const w = m.workload_level;
  assert.equal(m.count, 4);
  // real 10000 20000 30000 40000; sim 11000 18000 33000 46000
  assert.equal(w.real_mean, 25000);
  assert.equal(w.sim_mean, 27000);
  assert.equal(w.mean_error, 2000);
  close(w.mean_percent_error, 0.08, "mean %");
  // p50 at rank 1.5
  assert.equal(w.real_p50, 25000);
  assert.equal(w.sim_p50, 25500);
  assert.equal(w.real_median, 25000);
  assert.equal(w.sim_median, 25500);
  assert.equal(w.median_error, 500);
  close(w.median_percent_error, 0.02, "median %");
  // p90 at rank 2.7, p95 at 2.85, p99 at 2.97
  close(w.real_p90, 37000, "real p90");
  close(w.sim_p90, 42100, "sim p90");
  close(w.p90_error, 5100, "p90 error");
  close(w.p90_percent_error, 5100 / 37000, "p90 %");
  close(w.real_p95, 38500, "real p95");
  close(w.sim_p95, 44050, "sim p95");
  close(w.real_p99, 39700, "real p99");
  close(w.sim_p99, 45610, "sim p99");
  close(w.p99_percent_error, 5910 / 39700, "p99 %");
  // |r−s|/r = 0.1, 0.1, 0.1, 0.15; Σ(s−r) = +8000
  const r = m.request_level;
  close(r.mape, 0.1125, "MAPE");
  assert.equal(r.bias_direction, "over-predict");
  // x = 1,2,3,4; y = 11,18,33,46: (4·330 − 10·108) / sqrt((4·30 − 100)(4·3650 − 108²)) = 240 / sqrt(20·2936)
  close(r.pearson_r, 240 / Math.sqrt(20 * 2936), "Pearson r");
  close(r.pearson_r, 0.990418, "Pearson r (decimal)", 1e-6);
  assert.equal(r.quality, "good"); // MAPE ≥ 0.10, < 0.20 and r > 0.85
});

test("E2E statistics and the TTFT verdict", () => {
  const report = calibrate(trace(), sim());
  const m = report.metrics.e2e!;
  const w = m.workload_level;
  // real 50000 80000 100000 150000; sim 55000 84000 90000 165000
  assert.equal(w.real_mean, 95000);
  assert.equal(w.sim_mean, 98500);
  close(w.mean_percent_error, 3500 / 95000, "mean %");
  assert.equal(w.real_p50, 90000);
  assert.equal(w.sim_p50, 87000);
  assert.equal(w.p50_error, -3000);
  close(w.p50_percent_error, 3000 / 90000, "p50 % (absolute value)");
  close(w.real_p90, 135000, "real p90");
  close(w.sim_p90, 142500, "sim p90");
  // |r−s|/r = 0.1, 0.05, 0.1, 0.1; Σ(s−r) = 5000 + 4000 − 10000 + 15000 > 0
  close(m.request_level.mape, 0.0875, "MAPE");
  assert.equal(m.request_level.bias_direction, "over-predict");
  // x = 50,80,100,150; y = 55,84,90,165: 23160 / sqrt(21200 · 26388)
  close(m.request_level.pearson_r, 23160 / Math.sqrt(21200 * 26388), "Pearson r");
  assert.equal(m.request_level.quality, "excellent");
  assert.deepEqual(report.ttft_tolerance, {
    mape: report.metrics.ttft!.request_level.mape,
    threshold: 0.15,
    within: true,
  });
  const strict = calibrate(trace(), sim(), { ttftMapeThreshold: 0.1 });
  assert.equal(strict.ttft_tolerance!.within, false);
  assert.equal(calibrate(trace(), sim(), { ttftMapeThreshold: 0.113 }).ttft_tolerance!.within, true);
});

test("RTT and bandwidth normalization", () => {
  const ttftMean = (o: CalibrateOptions, t = trace()): number =>
    calibrate(t, sim(), o).metrics.ttft!.workload_level.sim_mean;
  const e2eMean = (o: CalibrateOptions): number => calibrate(trace(), sim(), o).metrics.e2e!.workload_level.sim_mean;
  // Server-side means: TTFT (10500 + 17500 + 32500 + 45500)/4 = 26500, E2E 98000.
  assert.equal(ttftMean({}), 27000, "header RTT 0.5 ms");
  assert.equal(ttftMean({ networkRttUs: 0 }), 26500);
  assert.equal(ttftMean({ networkRttUs: 2000 }), 28500);
  // 16 Mbps: up = 32·in/16 = 2·in (200, 256, 400, 512), down = 2·out (24, 24, 40, 60).
  assert.equal(ttftMean({ networkRttUs: 0, networkBandwidthMbps: 16 }), (10700 + 17756 + 32900 + 46012) / 4);
  assert.equal(e2eMean({ networkRttUs: 0, networkBandwidthMbps: 16 }), (54724 + 83780 + 89940 + 165072) / 4);
  assert.equal(e2eMean({ networkRttUs: 0, networkBandwidthMbps: -3 }), 98000, "bandwidth ≤ 0: no transfer delay");
  // Header RTT: truncated to whole µs; absent → 0.
  const t = trace();
  t.header.network = { measured_rtt_ms: 1.2345 };
  assert.equal(calibrateWithDetails(t, sim()).details.normalization.networkRttUs, 1234);
  delete t.header.network;
  assert.equal(ttftMean({}, t), 26500);
});

test("--warmup-requests overrides the header", () => {
  const { report } = calibrateWithDetails(trace(), sim(), { warmupRequests: 0 });
  assert.deepEqual(report.trace_info, { num_requests: 8, warm_up_excluded: 0, matched_pairs: 6, token_mismatches: 1 });
  assert.equal(report.metrics.ttft!.count, 5);
  const late = calibrate(trace(), sim(), { warmupRequests: 6 });
  assert.deepEqual(late.trace_info, { num_requests: 7, warm_up_excluded: 6, matched_pairs: 1, token_mismatches: 0 });
});

test("ITL from the ITL CSV: chunk order, negative deltas, dropped requests", () => {
  const { report } = calibrateWithDetails(trace(), sim(), {}, loadItlCsv(ITL));
  assert.deepEqual(Object.keys(report.metrics), ["e2e", "itl", "ttft"]);
  assert.equal(report.trace_info.itl_dropped, 1, "request 5: its only delta is negative");
  const m = report.metrics.itl!;
  // Requests 1 (deltas 5000, 7000 → 6000), 2 (4000, −1000 skipped, 6000 → 5000) and 4 (8000;
  // its negative TTFT does not affect ITL). Request 6 has one chunk, 0 and 3 are not compared.
  // sim = (e2e − ttft)/(O − 1): 44000/11 = 4000, 66000/11 = 6000, 20000/10 = 2000.
  assert.equal(m.count, 3);
  close(m.workload_level.real_mean, 19000 / 3, "real mean");
  assert.equal(m.workload_level.sim_mean, 4000);
  assert.equal(m.workload_level.real_p50, 6000);
  assert.equal(m.workload_level.sim_p50, 4000);
  close(m.workload_level.real_p90, 7600, "real p90");
  close(m.workload_level.sim_p90, 5600, "sim p90");
  close(m.request_level.mape, (2000 / 6000 + 1000 / 5000 + 6000 / 8000) / 3, "MAPE");
  close(m.request_level.pearson_r, -18 / Math.sqrt(336), "Pearson r");
  assert.equal(m.request_level.bias_direction, "under-predict");
  assert.equal(m.request_level.quality, "poor");
  // Without ITL data the metric and the counter are absent.
  assert.equal("itl_dropped" in calibrate(trace(), sim()).trace_info, false);
});

test("per-SLO-class and per-model breakdowns", () => {
  const { details } = calibrateWithDetails(trace(), sim());
  assert.equal(details.bySloClass.length, 2);
  const [critical, standard] = details.bySloClass;
  assert.equal(critical!.key, "critical");
  assert.equal(critical!.n, 2);
  close(critical!.ttftMape, 0.1, "critical TTFT");
  close(critical!.e2eMape, 0.075, "critical E2E");
  assert.equal(standard!.key, "standard");
  close(standard!.ttftMape, 0.125, "standard TTFT");
  close(standard!.e2eMape, 0.1, "standard E2E");
  assert.deepEqual(
    details.byModel.map((b) => [b.key, b.n]),
    [["llama-8b", 4]],
  );
});

// --- small traces built in code ---

function row(id: number, ttft: number, e2e: number, patch: Partial<TraceRecord> = {}): TraceRecord {
  const send = 1_000_000 * (id + 1);
  return {
    ...emptyTraceRecord(),
    request_id: id,
    input_tokens: 10,
    output_tokens: 5,
    send_time_us: send,
    first_chunk_time_us: send + ttft,
    last_chunk_time_us: send + e2e,
    ...patch,
  };
}
function simEntry(id: number, ttft: number, e2e: number): SimResultEntry {
  return { request_id: id, ttft_us: ttft, e2e_us: e2e, input_tokens: 10, output_tokens: 5 };
}
function smallTrace(records: TraceRecord[]): TraceV2 {
  return { header: newTraceHeader("real"), layout: "v3", optionalColumns: [], records };
}

test("fatal conditions and their messages", () => {
  const t = smallTrace([row(0, 100, 200), row(1, 100, 200)]);
  throwsUser(() => calibrate(t, []), /^No sim results found/);
  throwsUser(
    () => calibrate(t, [simEntry(7, 100, 200)]),
    "No matching request IDs found between trace and sim results — check that both files use the same request ID numbering",
  );
  const skewed = smallTrace([row(0, -5, 200), row(1, 100, -1)]);
  throwsUser(
    () => calibrate(skewed, [simEntry(0, 100, 200), simEntry(1, 100, 200)]),
    "No valid latency pairs after filtering — all matched requests may have corrupt timing data (negative latencies)",
  );
  // Warm-up rows do not count as matched.
  const warm = smallTrace([row(0, 100, 200)]);
  warm.header.warm_up_requests = 1;
  throwsUser(() => calibrate(warm, [simEntry(0, 100, 200)]), /^No matching request IDs/);
});

test("option checks", () => {
  const t = smallTrace([row(0, 100, 200)]);
  const s = [simEntry(0, 100, 200)];
  throwsUser(
    () => calibrate(t, s, { networkRttUs: -5 }),
    "--network-rtt-us must be >= 0 (or omit to use trace header), got -5",
  );
  throwsUser(
    () => calibrate(t, s, { networkBandwidthMbps: Infinity }),
    "--network-bandwidth-mbps must be a finite number, got Infinity",
  );
  throwsUser(
    () => calibrate(t, s, { ttftMapeThreshold: -0.1 }),
    "--ttft-mape-threshold must be a finite number >= 0, got -0.1",
  );
  throwsUser(
    () => calibrate(t, s, { ttftMapeThreshold: NaN }),
    "--ttft-mape-threshold must be a finite number >= 0, got NaN",
  );
  throwsUser(
    () => calibrate(t, s, { hitRateTolerancePp: -1 }),
    "--hit-rate-tolerance-pp must be a finite number >= 0, got -1",
  );
  throwsUser(() => calibrate(t, s, { warmupRequests: -2 }), /^--warmup-requests must be >= 0/);
  assert.equal(calibrate(t, s, { networkRttUs: 0, ttftMapeThreshold: 0 }).ttft_tolerance!.within, true);
});

test("statistics edge cases", () => {
  assert.equal(percentile([], 50), 0);
  assert.equal(percentile([7], 99), 7);
  assert.equal(percentile([3, 1, 2], 50), 2);
  assert.equal(percentile([1, 2], 90), 1.9);
  assert.equal(pearson([1, 2], [2, 4]), 0, "n < 3");
  assert.equal(pearson([1, 2, 3], [5, 5, 5]), 0, "constant side");
  close(pearson([1, 2, 3], [2, 4, 6]), 1, "perfect");
  // MAPE skips r = 0 (and the bias uses the same pairs).
  assert.deepEqual(mapeAndBias([0, 10], [5, 12]), { mape: 0.2, bias: "over-predict", used: 1 });
  assert.deepEqual(mapeAndBias([10, 10], [12, 8]), { mape: 0.2, bias: "neutral", used: 2 });
  assert.deepEqual(mapeAndBias([0, 0], [1, 2]), { mape: 0, bias: "", used: 0 });
  assert.equal(qualityLabel(0.0999, 0.951), "excellent");
  assert.equal(qualityLabel(0.1, 0.99), "good", "MAPE must be < 0.10");
  assert.equal(qualityLabel(0.05, 0.95), "good", "r must be > 0.95");
  assert.equal(qualityLabel(0.34, 0.71), "fair");
  assert.equal(qualityLabel(0.35, 0.99), "poor");
  assert.equal(qualityLabel(0, 0), "poor");
});

test("sim results loader: validation with file and entry, extra keys ignored", () => {
  const entries = sim();
  assert.equal(entries.length, 7);
  assert.deepEqual(entries[1], {
    request_id: 1,
    ttft_us: 10500,
    e2e_us: 54500,
    input_tokens: 100,
    output_tokens: 12,
    slo_class: "critical",
    model: "llama-8b",
    itl_mean_us: 4000,
  });
  throwsUser(
    () => parseSimResults("{}", "r.json"),
    "parsing sim results r.json: expected a JSON array of results, got an object",
  );
  throwsUser(() => parseSimResults("[1,", "r.json"), /^parsing sim results r\.json: invalid JSON: /);
  throwsUser(
    () =>
      parseSimResults(
        '[{"request_id":1,"ttft_us":1,"e2e_us":2,"input_tokens":1,"output_tokens":1},{"request_id":2,"e2e_us":2,"input_tokens":1,"output_tokens":1}]',
        "r.json",
      ),
    /^parsing sim results r\.json: entry 1 \(request_id 2\): ttft_us: /,
  );
  throwsUser(
    () => parseSimResults('[{"request_id":1.5,"ttft_us":1,"e2e_us":2,"input_tokens":1,"output_tokens":1}]', "r.json"),
    /^parsing sim results r\.json: entry 0 \(request_id 1\.5\): request_id: /,
  );
  throwsUser(
    () => parseSimResults('[{"request_id":1,"ttft_us":-1,"e2e_us":2,"input_tokens":1,"output_tokens":1}]', "r.json"),
    /entry 0 \(request_id 1\): ttft_us: must be >= 0/,
  );
  throwsUser(
    () => parseSimResults('[{"request_id":1,"ttft_us":1,"e2e_us":2,"input_tokens":"3","output_tokens":1}]', "r.json"),
    /entry 0 \(request_id 1\): input_tokens: /,
  );
  assert.deepEqual(parseSimResults("[]", "r.json"), []);
  const empty = tmp("empty.json", "[]\n");
  throwsUser(() => loadSimResults(empty), `No sim results found in ${empty} — cannot calibrate with empty data`);
  throwsUser(
    () => loadSimResults(path.join(dir, "missing.json")),
    /^reading sim results: open .*missing\.json: no such file or directory$/,
  );
});

test("ITL CSV loader", () => {
  assert.deepEqual(parseItlCsv("request_id,chunk_index,timestamp_us\r\n3,0,100\r\n\r\n3,1,250,extra\r\n", "i.csv"), [
    { request_id: 3, chunk_index: 0, timestamp_us: 100 },
    { request_id: 3, chunk_index: 1, timestamp_us: 250 },
  ]);
  throwsUser(
    () => parseItlCsv("request_id,chunk_index,timestamp_us\n1,2\n", "i.csv"),
    "i.csv line 2: ITL row has 2 columns, expected 3",
  );
  throwsUser(() => parseItlCsv("h\n1,-2,5\n", "i.csv"), "i.csv line 2, column chunk_index: must be >= 0, got -2");
  throwsUser(() => parseItlCsv("h\n1,x,5\n", "i.csv"), /^i\.csv line 2, column chunk_index: parsing "x"/);
  assert.equal(loadItlCsv(ITL).length, 16);
});

test("KV hit-rate comparison", () => {
  const t = trace();
  t.header.observed_kv_metrics = {
    source: "tiered",
    hit_rate: 0.7,
    block_hits: 70,
    block_queries: 100,
    read_time_total: 0,
    write_time_total: 0,
    vllm_commit: "",
  };
  const { report, details } = calibrateWithDetails(t, sim(), { simCacheHitRate: 0.75 });
  const hr = report.hit_rate!;
  assert.equal(hr.real_hit_rate, 0.7);
  assert.equal(hr.sim_hit_rate, 0.75);
  close(hr.abs_error_pp, 5, "pp");
  assert.equal(hr.tolerance_pp, 5);
  assert.equal(hr.within, true, "the 5 pp band is inclusive despite rounding");
  assert.equal(hr.source, "tiered");
  assert.equal(details.notes.length, 0);
  assert.equal(calibrate(t, sim(), { simCacheHitRate: 0.75, hitRateTolerancePp: 4 }).hit_rate!.within, false);
  const skipped = calibrateWithDetails(t, sim());
  assert.equal(skipped.report.hit_rate, undefined);
  assert.match(skipped.details.notes[0]!, /skipping the hit-rate comparison/);
  assert.equal(parseSimCacheHitRate('{"cache_hit_rate": 0.25}', "m.json"), 0.25);
  assert.equal(parseSimCacheHitRate('{"ttft_mean_ms": 3}', "m.json"), undefined);
  throwsUser(
    () => parseSimCacheHitRate('{"cache_hit_rate": 2}', "m.json"),
    "parsing --sim-metrics m.json: cache_hit_rate must be a number in [0, 1], got 2",
  );
});

test("goodput: SLO flags over header targets, attainment real vs sim", () => {
  assert.equal(parseDurationMs("1m30s"), 90000);
  assert.equal(parseDurationMs("1.5s"), 1500);
  assert.equal(parseDurationMs("250us"), 0.25);
  assert.equal(parseDurationMs("5"), null);
  assert.deepEqual(parseSloFlag("--slo-ttft", "critical=19ms, standard=1s"), { critical: 19, standard: 1000 });
  assert.equal(parseSloFlag("--slo-ttft", " "), undefined);
  throwsUser(
    () => parseSloFlag("--slo-ttft", "critical"),
    '--slo-ttft: invalid pair "critical" (expected class=duration)',
  );
  throwsUser(() => parseSloFlag("--slo-e2e", "critical=0s"), '--slo-e2e: non-positive duration in pair "critical=0s"');
  throwsUser(
    () => parseSloFlag("--slo-itl", "critical=fast"),
    /^--slo-itl: unparseable duration in pair "critical=fast"/,
  );
  assert.deepEqual(
    mergeSloTargets(
      { ttft: { critical: 19 } },
      { critical: { ttft_ms: 50, itl_ms: 0, e2e_ms: 900 }, idle: { ttft_ms: 0, itl_ms: 0, e2e_ms: 0 } },
    ),
    { critical: { ttft_ms: 19, itl_ms: 0, e2e_ms: 900 } },
  );

  const t = trace();
  t.header.goodput_slo_targets = { standard: { ttft_ms: 0, itl_ms: 0, e2e_ms: 120 } };
  const gp = calibrate(t, sim(), { sloTargets: { ttft: { critical: 19 } } }).goodput!;
  assert.deepEqual(gp.targets, {
    critical: { ttft_ms: 19, itl_ms: 0, e2e_ms: 0 },
    standard: { ttft_ms: 0, itl_ms: 0, e2e_ms: 120 },
  });
  // critical: real TTFT 10000 ✓ 20000 ✗; sim 11000 ✓ 18000 ✓.
  assert.deepEqual(gp.per_class["critical"], {
    count: 2,
    real_slo_attainment: 0.5,
    sim_slo_attainment: 1,
    real_attainment_by_dim: { ttft: 0.5 },
    sim_attainment_by_dim: { ttft: 1 },
  });
  // standard: real E2E 100000 ✓ 150000 ✗; sim 90000 ✓ 165000 ✗.
  assert.deepEqual(gp.per_class["standard"], {
    count: 2,
    real_slo_attainment: 0.5,
    sim_slo_attainment: 0.5,
    real_attainment_by_dim: { e2e: 0.5 },
    sim_attainment_by_dim: { e2e: 0.5 },
  });
  assert.equal(gp.skipped_itl, undefined);
  // An ITL target without ITL data: flagged, and the real side cannot meet it.
  const itlGp = calibrateWithDetails(trace(), sim(), { sloTargets: { itl: { critical: 10 } } });
  assert.equal(itlGp.report.goodput!.skipped_itl, true);
  assert.equal(itlGp.report.goodput!.per_class["critical"]!.real_slo_attainment, 0);
  assert.equal(itlGp.report.goodput!.per_class["critical"]!.sim_slo_attainment, 1, "sim ITL 4000 and 6000 µs");
  assert.match(itlGp.details.notes.join("\n"), /^goodput: an ITL target is set/);
});

test("table rendering", () => {
  const { report, details } = calibrateWithDetails(trace(), sim(), {}, loadItlCsv(ITL));
  const text = renderCalibrationTable(report, details);
  assert.match(text, /^=== Calibration: real vs simulated ===\n/);
  assert.match(
    text,
    /Requests: 8 \(warm-up excluded 1, matched 5, unmatched real 2, unmatched sim 2\), token mismatches 1, ITL dropped 1\n/,
  );
  assert.match(text, /Normalization: warm-up 1 requests, RTT 500 µs, no transfer delay\n/);
  assert.ok(text.indexOf("TTFT (µs, 4 requests)") < text.indexOf("E2E (µs, 4 requests)"));
  assert.ok(text.indexOf("E2E (µs, 4 requests)") < text.indexOf("ITL (µs, 3 requests)"));
  assert.match(text, /\n {2}mean +25000\.0 +27000\.0 +\+2000\.0 +8\.0%\n/);
  assert.match(text, /\n {2}p50 +90000\.0 +87000\.0 +-3000\.0 +3\.3%\n/);
  assert.match(text, /MAPE 11\.3% {3}Pearson r 0\.9904 {3}bias over-predict {3}quality good\n/);
  assert.match(text, /\nTTFT MAPE 11\.3% \(threshold 15\.0%\): WITHIN\n$/);
});

// --- command line ---

const BASE = ["calibrate", "--trace-header", HEADER, "--trace-data", DATA, "--sim-results", SIM];

test("CLI: table on stdout, breakdowns on stderr", async () => {
  const res = await cli([...BASE, "--itl-data", ITL]);
  assert.equal(res.code, 0, res.stderr.join("\n"));
  assert.equal(
    res.stdout,
    renderCalibrationTable(
      ...(Object.values(calibrateWithDetails(trace(), sim(), {}, loadItlCsv(ITL))) as Parameters<
        typeof renderCalibrationTable
      >),
    ),
  );
  assert.ok(res.stderr.includes('level=info msg="Per-SLO-class calibration:"'), res.stderr.join("\n"));
  assert.ok(res.stderr.includes('level=info msg="  SLO=critical: n=2 TTFT-MAPE=10.0% E2E-MAPE=7.5%"'));
  assert.ok(res.stderr.includes('level=info msg="  SLO=standard: n=2 TTFT-MAPE=12.5% E2E-MAPE=10.0%"'));
  assert.ok(res.stderr.includes('level=info msg="  model=llama-8b: n=4 TTFT-MAPE=11.3% E2E-MAPE=8.8%"'));
  assert.ok(res.stderr.some((l) => l.startsWith("level=warn") && l.includes("ITL dropped for 1 request(s)")));
  const quiet = await cli([...BASE, "--log", "warn"]);
  assert.deepEqual(quiet.stderr, []);
});

test("CLI: --json prints the report, --report writes it", async () => {
  const out = path.join(dir, "report.json");
  const res = await cli([
    ...BASE,
    "--json",
    "--report",
    out,
    "--network-rtt-us",
    "0",
    "--network-bandwidth-mbps",
    "16",
    "--ttft-mape-threshold",
    "0.05",
    "--log",
    "warn",
  ]);
  assert.equal(res.code, 0, res.stderr.join("\n"));
  const expected = calibrate(trace(), sim(), { networkRttUs: 0, networkBandwidthMbps: 16, ttftMapeThreshold: 0.05 });
  assert.deepEqual(JSON.parse(res.stdout), expected);
  assert.equal(fs.readFileSync(out, "utf8"), res.stdout);
  assert.equal(expected.ttft_tolerance!.within, false);
  // --report alone: the table still goes to stdout.
  const out2 = path.join(dir, "report2.json");
  const table = await cli([...BASE, "--report", out2, "--warmup-requests", "0"]);
  assert.match(table.stdout, /^=== Calibration/);
  assert.equal(JSON.parse(fs.readFileSync(out2, "utf8")).trace_info.matched_pairs, 6);
  assert.ok(table.stderr.includes(`level=info msg=${JSON.stringify(`Calibration report written to ${out2}`)}`));
});

test("CLI: goodput and hit rate from flags and files", async () => {
  const metrics = tmp("metrics.json", JSON.stringify({ cache_hit_rate: 0.42 }));
  const header = tmp(
    "header-kv.yaml",
    fs.readFileSync(HEADER, "utf8") + "observed_kv_metrics:\n  source: gpu-prefix-cache-fallback\n  hit_rate: 0.5\n",
  );
  const res = await cli([
    "calibrate",
    "--trace-header",
    header,
    "--trace-data",
    DATA,
    "--sim-results",
    SIM,
    "--json",
    "--sim-metrics",
    metrics,
    "--slo-ttft",
    "critical=19ms",
  ]);
  assert.equal(res.code, 0, res.stderr.join("\n"));
  const report = JSON.parse(res.stdout) as {
    hit_rate: { within: boolean; abs_error_pp: number; source: string };
    goodput: { per_class: Record<string, { sim_slo_attainment: number }> };
  };
  assert.equal(report.hit_rate.within, false);
  close(report.hit_rate.abs_error_pp, 8, "pp");
  assert.equal(report.hit_rate.source, "gpu-prefix-cache-fallback");
  assert.equal(report.goodput.per_class["critical"]!.sim_slo_attainment, 1);
});

async function fails(args: string[], expected: string | RegExp): Promise<void> {
  const res = await cli(["calibrate", ...args]);
  const label = args.join(" ");
  assert.equal(res.code, 1, `${label}: exit status`);
  assert.equal(res.stdout, "", `${label}: nothing on stdout`);
  assert.equal(res.stderr.length, 1, `${label}: one line, got ${JSON.stringify(res.stderr)}`);
  if (typeof expected === "string") assert.equal(res.stderr[0], expected, label);
  else assert.match(res.stderr[0]!, expected, label);
}

test("CLI: flag errors are one line, exit 1, before any file is read", async () => {
  const none = path.join(dir, "does-not-exist.json");
  const files = ["--trace-header", HEADER, "--trace-data", DATA, "--sim-results", none];
  await fails(
    [...files, "--network-rtt-us", "-5"],
    "error: --network-rtt-us must be >= 0 (or omit to use trace header), got -5",
  );
  await fails(
    [...files, "--network-rtt-us=-7"],
    "error: --network-rtt-us must be >= 0 (or omit to use trace header), got -7",
  );
  await fails(
    [...files, "--ttft-mape-threshold", "-1"],
    "error: --ttft-mape-threshold must be a finite number >= 0, got -1",
  );
  await fails(
    [...files, "--ttft-mape-threshold", "inf"],
    "error: --ttft-mape-threshold must be a finite number >= 0, got Infinity",
  );
  await fails(
    [...files, "--network-bandwidth-mbps", "nan"],
    "error: --network-bandwidth-mbps must be a finite number, got NaN",
  );
  await fails(
    [...files, "--hit-rate-tolerance-pp", "-0.5"],
    "error: --hit-rate-tolerance-pp must be a finite number >= 0, got -0.5",
  );
  await fails(
    [...files, "--slo-e2e", "critical=soon"],
    /^error: --slo-e2e: unparseable duration in pair "critical=soon"/,
  );
  await fails([...files, "--log", "loud"], "error: Invalid log level: loud");
  await fails(
    [...files, "--network-rtt-us", "abc"],
    /^error: option '--network-rtt-us <int>' argument 'abc' is invalid/,
  );
  await fails(["--trace-header", HEADER, "--trace-data", DATA], "error: --sim-results is required");
  await fails(["--trace-data", DATA, "--sim-results", SIM], "error: --trace-header is required");
  // Files are read after the checks.
  await fails(files, /^error: reading sim results: open .*does-not-exist\.json: no such file or directory$/);
  const empty = tmp("empty-cli.json", "[]");
  await fails(
    ["--trace-header", HEADER, "--trace-data", DATA, "--sim-results", empty],
    `error: No sim results found in ${empty} — cannot calibrate with empty data`,
  );
  const stranger = tmp(
    "stranger.json",
    JSON.stringify([{ request_id: 100, ttft_us: 1, e2e_us: 2, input_tokens: 1, output_tokens: 1 }]),
  );
  await fails(
    ["--trace-header", HEADER, "--trace-data", DATA, "--sim-results", stranger, "--log", "warn"],
    /^error: No matching request IDs found/,
  );
  const skewOnly = tmp(
    "skew.json",
    JSON.stringify([{ request_id: 4, ttft_us: 1, e2e_us: 2, input_tokens: 50, output_tokens: 11 }]),
  );
  await fails(
    ["--trace-header", HEADER, "--trace-data", DATA, "--sim-results", skewOnly, "--log", "warn"],
    /^error: No valid latency pairs after filtering/,
  );
});
