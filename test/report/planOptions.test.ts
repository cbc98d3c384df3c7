import { test } from "node:test";
import assert from "node:assert/strict";
import { splitReportKey, DEFAULT_PARETO } from "../../src/report/planOptions.js";
import { paretoCells } from "../../src/report/sweepPareto.js";
import { SWEEP_REPORT_FORMAT, type SweepReportData } from "../../src/report/sweepData.js";
import { binCounts, cdfPoints, makeBins, thin } from "../../src/report/stats.js";
import { reportDataPath } from "../../src/report/runReport.js";
import { PlanError } from "../../src/experiment/errors.js";
import type { SweepReport } from "../../src/experiment/report.js";

test("the report key is read and blanked without moving the other keys", () => {
  const text = "name: x\nreport:\n  pareto: [e2e_p99, throughput]\nseeds: [1]\n";
  const { rest, report } = splitReportKey(text, "p.yaml");
  assert.deepEqual(report.pareto, ["e2e_p99", "throughput"]);
  assert.equal(rest.length, text.length);
  assert.equal(rest.split("\n")[3], "seeds: [1]");
  assert.doesNotMatch(rest, /report|pareto/);
  assert.deepEqual(splitReportKey("name: x\n", "p.yaml").report.pareto, DEFAULT_PARETO);
});

test("bad report keys fail with the position", () => {
  assert.throws(
    () => splitReportKey("name: x\nreport:\n  paretto: [a, b]\n", "p.yaml"),
    (e: unknown) => e instanceof PlanError && /p\.yaml:3:3: report: unknown key "paretto"/.test(e.message),
  );
  assert.throws(() => splitReportKey("report: {pareto: [ttft_p99]}\n", "p.yaml"), /expected two metric names/);
  assert.throws(() => splitReportKey("report: {pareto: [ttft_p99, ttft_p99]}\n", "p.yaml"), /must differ/);
  assert.throws(
    () => splitReportKey("report: {pareto: [ttft_p99, nope]}\n", "p.yaml"),
    /p\.yaml:1:29: report: pareto metric "nope"/,
  );
});

function sweepData(values: Record<string, [number, number]>): SweepReportData {
  const configs = Object.keys(values);
  const report = {
    name: "t",
    seeds: [1],
    metrics: ["ttft_p99", "throughput"],
    axes: [],
    configs,
    per_seed: configs.map((c) => ({
      config: c,
      seed: 1,
      status: "ok",
      values: { ttft_p99: values[c]![0], throughput: values[c]![1] },
    })),
  } as unknown as SweepReport;
  return { format: SWEEP_REPORT_FORMAT, tool: "t", report, pareto: ["ttft_p99", "throughput"], extra: [] };
}

test("Pareto: lower ttft_p99 and higher throughput are better", () => {
  const cells = paretoCells(sweepData({ a: [10, 5], b: [20, 8], c: [30, 7], d: [10, 4], e: [40, 8] }));
  const front = cells.filter((c) => c.front).map((c) => c.config);
  assert.deepEqual(front, ["a", "b"]);
});

test("CDF points, bins and thinning stay bounded", () => {
  const v = Float64Array.from({ length: 10000 }, (_, i) => i);
  const cdf = cdfPoints(v, 1, 400);
  assert.ok(cdf.x.length <= 402);
  assert.equal(cdf.y[cdf.y.length - 1], 1);
  assert.equal(cdf.x[cdf.x.length - 1], 9999);
  const bins = makeBins(Float64Array.from([1, 2, 3, 4, 100]));
  const counts = binCounts(bins, [1, 2, 3, 4, 100]);
  assert.equal(
    counts.reduce((s, c) => s + c, 0),
    5,
  );
  assert.deepEqual(thin([1, 2, 3, 4, 5, 6], 3, "mean"), [1.5, 3.5, 5.5]);
  assert.deepEqual(thin([1, 2, 3, 4, 5, 6], 3, "last"), [2, 4, 6]);
});

test("the report data file sits beside the HTML", () => {
  assert.equal(reportDataPath("out/r.html"), "out/r.json");
  assert.equal(reportDataPath("out/r"), "out/r.json");
  assert.equal(reportDataPath("out/r.json"), "out/r.json.json");
});
