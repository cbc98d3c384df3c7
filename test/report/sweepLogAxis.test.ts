// Sweep report charts on logarithmic axes, opened in headless Chromium: the ticks Chart.js ends up
// with are 1-2-5 × 10^k (powers of ten on wide ranges) and every whisker lies inside its axis.
// The sweep is made up (no simulation), with seed spreads that reach below the smallest mean.

import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { BrowserContext } from "playwright-core";
import type { SweepReport } from "../../src/experiment/report.js";
import { SWEEP_REPORT_FORMAT, type SweepReportData } from "../../src/report/sweepData.js";
import { renderSweepReport } from "../../src/report/sweepReport.js";
import { launch } from "./browser.js";

const SHOTS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../test-output/screenshots");

const SEEDS = [1, 2, 3];
const CONFIGS = ["rate=10", "rate=20", "rate=50", "rate=100"];
/** Per-seed values by metric, one row per configuration. */
const VALUES: Record<string, number[][]> = {
  // Means 45, 110, 400, 980: the range whose ticks used to read 1000, 700, 300, 100, 70, 40;
  // the lowest whisker (30) is below the lowest bar.
  ttft_p99: [
    [30, 45, 60],
    [60, 110, 160],
    [150, 400, 650],
    [700, 980, 1260],
  ],
  // Six decades: powers of ten only.
  e2e_p99: [
    [3, 5, 7],
    [300, 500, 700],
    [3e4, 5e4, 7e4],
    [1e6, 1.5e6, 2e6],
  ],
  throughput: [
    [9, 10, 11],
    [19, 20, 21],
    [48, 50, 52],
    [90, 95, 100],
  ],
};

function sweepData(): SweepReportData {
  const metrics = Object.keys(VALUES);
  const perSeed = CONFIGS.flatMap((config, c) =>
    SEEDS.map((seed, s) => ({
      config,
      seed,
      status: "ok",
      values: Object.fromEntries(metrics.map((m) => [m, VALUES[m]![c]![s]!])),
    })),
  );
  const summary = CONFIGS.flatMap((config, c) =>
    metrics.map((metric) => {
      const v = VALUES[metric]![c]!;
      return {
        config,
        metric,
        mean: v.reduce((a, b) => a + b, 0) / v.length,
        min: Math.min(...v),
        max: Math.max(...v),
        n_valid: 3,
        n: 3,
      };
    }),
  );
  const ratios = CONFIGS.slice(1).map((numerator, c) => {
    const per = SEEDS.map((seed, s) => ({
      seed,
      value: VALUES["ttft_p99"]![c + 1]![s]! / VALUES["ttft_p99"]![0]![s]!,
    }));
    const vs = per.map((p) => p.value);
    return {
      ratio: "vs rate=10",
      metric: "ttft_p99",
      numerator,
      denominator: "rate=10",
      per_seed: per,
      mean: vs.reduce((a, b) => a + b, 0) / vs.length,
      min: Math.min(...vs),
      max: Math.max(...vs),
      above_1: "3/3",
      below_1: "0/3",
      verdict: "significant",
    };
  });
  const report: SweepReport = {
    name: "log-axes",
    seeds: SEEDS,
    metrics,
    axes: [{ name: "rate", values: ["10", "20", "50", "100"] }],
    configs: CONFIGS,
    runs: { expected: 12, finished: 12, ok: 12, failed: 0, missing: 0 },
    per_seed: perSeed,
    summary,
    ratios,
    monotonic: [],
    conservation: null,
    determinism: null,
    failures: [],
    warnings: [],
    checks: [],
    exit_status: 0,
  };
  return { format: SWEEP_REPORT_FORMAT, tool: "blis test", report, pareto: ["e2e_p99", "throughput"], extra: [] };
}

interface AxisState {
  type: string;
  min: number;
  max: number;
  ticks: number[];
  labels: string[];
}

interface ChartState {
  id: string;
  horizontal: boolean;
  axes: Record<string, AxisState>;
  area: { left: number; right: number; top: number; bottom: number };
  /** Whisker ends of the visible datasets, in values and in pixels along their axis. */
  whiskers: { axis: string; lo: number; hi: number; loPx: number; hiPx: number }[];
}

// Evaluated in the page (as source text: this project compiles without DOM types).
const READY = `(() => { const s = window.blisReport; return s !== undefined && s.rendered + s.failed.length >= s.expected; })()`;
const STATE = `(() => window.blisReport.charts.map((c) => {
  const horizontal = c.options.indexAxis === "y";
  const axes = {};
  for (const [id, s] of Object.entries(c.scales)) {
    axes[id] = { type: s.type, min: s.min, max: s.max, ticks: s.ticks.map((t) => t.value), labels: s.ticks.map((t) => String(t.label)) };
  }
  const whiskers = [];
  c.data.datasets.forEach((ds, i) => {
    if (!ds.blisWhiskers || !c.isDatasetVisible(i)) return;
    const meta = c.getDatasetMeta(i);
    const id = horizontal ? meta.xAxisID : meta.yAxisID;
    const s = c.scales[id];
    ds.blisWhiskers.forEach((w) => {
      if (w) whiskers.push({ axis: id, lo: w[0], hi: w[1], loPx: s.getPixelForValue(w[0]), hiPx: s.getPixelForValue(w[1]) });
    });
  });
  const a = c.chartArea;
  return { id: c.canvas.id, horizontal, axes, whiskers, area: { left: a.left, right: a.right, top: a.top, bottom: a.bottom } };
}))()`;

function isNice(v: number): boolean {
  const [m] = v.toExponential().split("e");
  return ["1", "2", "5"].includes(m!);
}

describe("sweep report charts on logarithmic axes", () => {
  let browser: BrowserContext;
  let close: () => Promise<void>;
  let tmp: string;

  before(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), "blis-logaxis-"));
    ({ browser, close } = await launch());
  });
  after(async () => {
    await close?.();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  test("ticks at 1-2-5 × 10^k or powers of ten, clean labels, no whisker outside its axis", async () => {
    const html = path.join(tmp, "report.html");
    fs.writeFileSync(html, renderSweepReport(sweepData()));
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on("console", (m) => {
      if (m.type() === "error") errors.push(m.text());
    });
    page.on("pageerror", (e) => errors.push(e.message));
    await page.goto(pathToFileURL(html).href, { waitUntil: "load", timeout: 120_000 });
    await page.waitForFunction(READY, undefined, { timeout: 120_000 });
    const charts = (await page.evaluate(STATE)) as ChartState[];
    fs.mkdirSync(SHOTS, { recursive: true });
    await page.screenshot({ path: path.join(SHOTS, "sweep-report-log-axes.png"), fullPage: true });
    await page.close();
    assert.deepEqual(errors, []);
    const chart = (id: string): ChartState => {
      const c = charts.find((x) => x.id === `chart-${id}`);
      assert.ok(c !== undefined, `chart ${id} in ${charts.map((x) => x.id).join(", ")}`);
      return c;
    };

    const ttft = chart("bars-ttft_p99").axes["y"]!;
    assert.equal(ttft.type, "logarithmic");
    assert.deepEqual(ttft.ticks, [20, 50, 100, 200, 500, 1000, 2000]);
    assert.deepEqual(ttft.labels, ["20", "50", "100", "200", "500", "1000", "2000"]);
    assert.deepEqual([ttft.min, ttft.max], [20, 2000], "the bounds are ticks and hold the whiskers (30 to 1260)");

    const e2e = chart("bars-e2e_p99").axes["y"]!;
    assert.deepEqual(e2e.ticks, [1, 10, 100, 1000, 1e4, 1e5, 1e6, 1e7]);
    assert.deepEqual(e2e.labels, ["1", "10", "100", "1000", "10k", "100k", "1M", "10M"]);

    // Every logarithmic axis of the page: at least two ticks, all nice, the bounds on ticks.
    const logAxes = charts.flatMap((c) =>
      Object.entries(c.axes)
        .filter(([, a]) => a.type === "logarithmic")
        .map(([k, a]) => [c.id, k, a] as const),
    );
    assert.ok(logAxes.length >= 4, `log axes: ${logAxes.map(([c, k]) => `${c}.${k}`).join(", ")}`);
    for (const [id, k, a] of logAxes) {
      assert.ok(a.ticks.length >= 2 && a.ticks.every(isNice), `${id}.${k}: ${a.ticks.join(" ")}`);
      assert.ok(
        a.ticks.includes(a.min) && a.ticks.includes(a.max),
        `${id}.${k}: bounds ${a.min}..${a.max} on ticks ${a.ticks.join(" ")}`,
      );
    }
    assert.equal(chart("pareto").axes["x"]!.type, "logarithmic", "the Pareto scatter has a logarithmic x axis");
    assert.deepEqual(
      chart("ratio-ttft_p99-vs-rate-10").axes["x"]!.ticks,
      [1, 2, 5, 10, 20, 50],
      "horizontal ratio bars from 1",
    );

    // No whisker leaves its axis: in values, and in pixels inside the plot area.
    let n = 0;
    for (const c of charts) {
      for (const w of c.whiskers) {
        const a = c.axes[w.axis]!;
        assert.ok(w.lo >= a.min && w.hi <= a.max, `${c.id}: whisker ${w.lo}..${w.hi} outside ${a.min}..${a.max}`);
        const [from, to] = c.horizontal ? [c.area.left, c.area.right] : [c.area.top, c.area.bottom];
        for (const px of [w.loPx, w.hiPx])
          assert.ok(px >= from - 0.5 && px <= to + 0.5, `${c.id}: whisker at ${px}px, plot ${from}..${to}`);
        n++;
      }
    }
    assert.ok(n >= 15, `${n} whiskers checked`);
  });
});
