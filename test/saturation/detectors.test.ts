// The post-hoc saturation detectors on hand-built request streams (docs/saturation.md).
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  analyzeSaturation,
  eventStream,
  finalLabel,
  type CompletedRequest,
  type TraceRecord,
} from "../../src/saturation/analyze.js";
import { ThresholdDetector } from "../../src/saturation/detectors.js";
import type { SaturationPlan } from "../../src/saturation/config.js";

const plan = (over: Partial<SaturationPlan> = {}): SaturationPlan => ({
  detectors: ["composite", "threshold", "backlog-drift"],
  thresholdMs: 5000,
  windowSec: 60,
  finalWindowUs: 30e6,
  report: "",
  ...over,
});
const req = (n: number, arrivedAtS: number, e2eMs: number): CompletedRequest => ({
  id: `request_${n}`,
  arrivedAtS,
  e2eMs,
});

test("threshold: the worked example, mean 6000 ms against 5000 ms is OVERLOADED with score 0.8", () => {
  const d = new ThresholdDetector(5000);
  assert.deepEqual(d.verdict(), {
    level: "STABLE",
    score: 0,
    confidence: 0,
    signals: { mean_e2e: 0, threshold: 5000 },
  });
  d.completion(0, 6000);
  const v = d.verdict();
  assert.equal(v.level, "OVERLOADED");
  assert.equal(v.score, 0.8);
  assert.equal(v.confidence, 1 - 1 / Math.SQRT2);
  d.completion(0, 0); // mean 3000
  assert.deepEqual([d.verdict().level, d.verdict().score], ["STABLE", 0.3]);
});

test("backlog-drift: 400 arrivals (noise 0.05) and a slope of 0.12 is BACKLOGGED with score 0.8", () => {
  // 23 one-second windows whose requests all finish inside them (in flight 0 at each window's end),
  // then 12 requests in the 24th still running: the series is 23 zeros and a 12, slope 6·12/(24·25).
  const reqs: CompletedRequest[] = [];
  let n = 0;
  for (let w = 0; w < 23; w++) {
    const k = w < 20 ? 17 : 16;
    for (let j = 0; j < k; j++) reqs.push(req(n++, w + j * 0.001, 0.5));
  }
  for (let j = 0; j < 12; j++) reqs.push(req(n++, 23 + j * 0.001, 100_000));
  assert.equal(n, 400);
  const a = analyzeSaturation(reqs, plan({ detectors: ["backlog-drift"], windowSec: 1 }), () =>
    assert.fail("no warning"),
  );
  const at400 = a.trace.filter((r) => r.signals["arrivals"] === 400 && r.signals["completions"] === 388);
  assert.equal(at400.length, 1);
  const r = at400[0]!;
  assert.ok(Math.abs(r.signals["running_slope"]! - 0.12) < 1e-12, String(r.signals["running_slope"]));
  assert.equal(r.signals["noise_floor"], 0.05);
  assert.equal(r.level, "BACKLOGGED");
  assert.ok(Math.abs(r.score - 0.8) < 1e-9);
  assert.equal(r.confidence, 1);
  assert.equal(r.signals["in_flight"], 12);
});

test("composite: latencies rising by quartile are OVERLOADED; steady ones STABLE", () => {
  const rising = Array.from({ length: 20 }, (_, k) => req(k, k, 100 * (k + 1)));
  const a = analyzeSaturation(rising, plan({ detectors: ["composite"] }), () => undefined);
  const last = a.trace[a.trace.length - 1]!;
  assert.equal(last.level, "OVERLOADED");
  assert.equal(last.score, 1);
  assert.equal(last.signals["rate_deficit"], 0);
  assert.equal(last.signals["quartile_monotone"], 1);
  assert.ok(Math.abs(last.signals["latency_trend"]! - 1000 / 550) < 1e-12);
  assert.equal(last.signals["latency_trend_raw"], 1, "capped at 1");
  assert.equal(last.signals["noise_floor"], 1 / Math.sqrt(20));
  // 19 completions: too few for a trend, so only the rate deficit can raise the level.
  const short = analyzeSaturation(rising.slice(0, 19), plan({ detectors: ["composite"] }), () => undefined);
  assert.equal(short.trace[short.trace.length - 1]!.signals["latency_trend"], 0);
  const steady = Array.from({ length: 40 }, (_, k) => req(k, k, 500));
  const s = analyzeSaturation(steady, plan({ detectors: ["composite"] }), () => undefined);
  assert.equal(s.trace[s.trace.length - 1]!.level, "STABLE");
  assert.equal(s.final["composite"], "STABLE");
});

test("composite: arrivals outrunning completions are BACKLOGGED without a latency trend", () => {
  // Ten arrive at once and take 1 s each: after the arrivals the deficit is 1 (≥ noise 0.316).
  const reqs = Array.from({ length: 10 }, (_, k) => req(k, 0, 1000));
  const a = analyzeSaturation(reqs, plan({ detectors: ["composite"] }), () => undefined);
  const afterArrivals = a.trace[9]!;
  assert.equal(afterArrivals.signals["rate_deficit"], 1);
  assert.equal(afterArrivals.level, "BACKLOGGED");
});

test("the stream: completed requests only, ties ordered arrival first, then by ID", () => {
  const ev = eventStream([req(2, 1, 1000), req(10, 1, 1000), req(3, 0, 1000), req(4, 5, 0)]);
  assert.deepEqual(
    ev.map((e) => `${e.time}/${e.kind}/${e.id}`),
    [
      "0/0/request_3",
      "1000000/0/request_10",
      "1000000/0/request_2",
      "1000000/1/request_3",
      "2000000/1/request_10",
      "2000000/1/request_2",
    ],
  );
});

test("the final vote: the most frequent level in the window, ties to the more severe", () => {
  const rec = (t: number, level: TraceRecord["level"]): TraceRecord => ({
    time_us: t,
    detector: "composite",
    level,
    score: 0,
    confidence: 0,
    signals: {},
  });
  const trace = [
    rec(0, "OVERLOADED"),
    rec(0, "OVERLOADED"),
    rec(0, "OVERLOADED"),
    rec(90, "STABLE"),
    rec(100, "BACKLOGGED"),
    rec(100, "STABLE"),
  ];
  assert.equal(finalLabel(trace, "composite", 20), "STABLE", "only records at 80..100 count");
  assert.equal(finalLabel(trace.slice(0, 5), "composite", 20), "BACKLOGGED", "1 STABLE, 1 BACKLOGGED: the more severe");
  assert.equal(finalLabel(trace, "composite", 1000), "OVERLOADED");
  assert.equal(finalLabel(trace, "threshold", 1000), "STABLE", "no records");
});

test("nothing completed: a warning, an empty trace and STABLE everywhere", () => {
  const warnings: string[] = [];
  const a = analyzeSaturation([req(0, 1, 0)], plan(), (m) => warnings.push(m));
  assert.equal(warnings.length, 1);
  assert.deepEqual(a.trace, []);
  assert.deepEqual(a.final, { "backlog-drift": "STABLE", composite: "STABLE", threshold: "STABLE" });
});
