// End-to-end: HTML reports of a run and of a sweep, built through the CLI, opened in headless
// Chromium; every chart must be drawn with data, with no console error and no network request.
// Screenshots go to test-output/screenshots/ (look at them when changing the report).

import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { BrowserContext } from "playwright-core";
import { checkPage, launch, type PageCheck } from "./browser.js";

const here = path.dirname(fileURLToPath(import.meta.url));
/** Repository root (this file runs from dist/test/report). */
const ROOT = path.resolve(here, "../../..");
const BIN = path.join(ROOT, "dist/src/cli/bin.js");
const SHOTS = path.join(ROOT, "test-output/screenshots");
const MODEL = "meta-llama/llama-3.1-8b-instruct";

function blis(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, encoding: "utf8", timeout: 180_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function assertRendered(p: PageCheck, minCharts: number): void {
  assert.deepEqual(p.pageErrors, [], "page errors");
  assert.deepEqual(p.consoleErrors, [], "console errors");
  assert.deepEqual(p.requests, [], "network requests besides the file itself");
  assert.deepEqual(p.failed, [], "charts that failed");
  assert.ok(p.expected >= minCharts, `expected at least ${minCharts} charts, the page has ${p.expected}`);
  assert.equal(p.rendered, p.expected, "every chart rendered");
  assert.equal(p.canvases, p.expected, "one canvas per chart");
  for (const c of p.charts) {
    assert.ok(c.width > 100 && c.height > 100, `${c.id}: canvas ${c.width}x${c.height}`);
    assert.ok(c.points > 0, `${c.id}: no data points`);
    assert.ok(c.painted > 500, `${c.id}: only ${c.painted} painted pixels`);
  }
}

const RUN_ARGS = [
  "run",
  "--model",
  MODEL,
  "--num-requests",
  "200",
  "--rate",
  "20",
  "--num-instances",
  "2",
  "--workload-spec",
  "examples/prefix-affinity-demo.yaml",
];

const PLAN = `# Two configurations x two seeds, for the report test.
name: report-test
seeds: [1, 2]
timeout_s: 120
base:
  flags:
    model: ${MODEL}
    num-requests: 80
    rate: 40
    log: error
axes:
  - name: instances
    flag: num-instances
    values: [1, 2]
baseline: instances=1
metrics: [ttft_mean, ttft_p99, e2e_p99, throughput, completed]
report:
  # tokens_per_sec is not tabulated: the report takes it from the runs.
  pareto: [e2e_p99, tokens_per_sec]
`;

describe("HTML reports in headless Chromium", () => {
  let browser: BrowserContext;
  let close: () => Promise<void>;
  let tmp: string;

  before(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), "blis-report-"));
    ({ browser, close } = await launch());
  });
  after(async () => {
    await close?.();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  test("blis run --report: every chart drawn, no errors, no requests; blis report rebuilds it", async () => {
    const html = path.join(tmp, "x.html");
    const plain = blis(RUN_ARGS);
    const withReport = blis([...RUN_ARGS, "--report", html]);
    assert.equal(withReport.code, 0, withReport.stderr);
    assert.equal(withReport.stdout, plain.stdout, "--report must not change stdout");
    const data = path.join(tmp, "x.json");
    assert.ok(fs.existsSync(html) && fs.existsSync(data));

    const text = fs.readFileSync(html, "utf8");
    assert.doesNotMatch(
      text,
      /<script[^>]+src=|<link[^>]+href=|@import|url\(\s*['"]?https?:/i,
      "no external resources",
    );

    const page = await checkPage(browser, html, path.join(SHOTS, "run-report.png"));
    assertRendered(page, 15);
    for (const id of [
      "ttft-cdf",
      "ttft-hist",
      "itl-token-cdf",
      "itl-req-cdf",
      "e2e-cdf",
      "e2e-hist",
      "inst-requests",
      "ts-queueDepth",
      "ts-kvUtilization",
      "ts-stepTimeUs",
    ]) {
      assert.ok(
        page.charts.some((c) => c.id === `chart-${id}`),
        `chart ${id} present`,
      );
    }
    // Narrow window: still every chart, and nothing wider than the window.
    const narrow = await checkPage(browser, html, path.join(SHOTS, "run-report-narrow.png"), 760);
    assertRendered(narrow, 15);
    for (const c of narrow.charts) assert.ok(c.width <= 760, `${c.id} is ${c.width}px wide in a 760px window`);

    // Rebuilt from the saved JSON: the same page.
    const again = path.join(tmp, "again.html");
    const rebuilt = blis(["report", data, "--out", again]);
    assert.equal(rebuilt.code, 0, rebuilt.stderr);
    assert.match(rebuilt.stderr, /run report written to/);
    assert.equal(fs.readFileSync(again, "utf8"), text, "the rebuilt report equals the original");
    const page2 = await checkPage(browser, again, path.join(SHOTS, "run-report-rebuilt.png"));
    assertRendered(page2, 15);
    // The HTML path works as RESULTS too (its JSON sits beside it).
    const third = blis(["report", html, "--out", path.join(tmp, "third.html")]);
    assert.equal(third.code, 0, third.stderr);
  });

  test("blis sweep --report: bars, Pareto and ratio charts drawn; blis report rebuilds from the directory", async () => {
    const planFile = path.join(tmp, "plan.yaml");
    fs.writeFileSync(planFile, PLAN);
    const out = path.join(tmp, "sweep");
    const r = blis(["sweep", planFile, "--out", out, "--report", "--jobs", "2", "--no-progress"]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /report written to .*report\.html/);
    const html = path.join(out, "report.html");
    const page = await checkPage(browser, html, path.join(SHOTS, "sweep-report.png"));
    // 5 metric bar charts, the Pareto scatter, 5 ratio charts (vs baseline, one per metric).
    assertRendered(page, 11);
    assert.ok(page.charts.some((c) => c.id === "chart-pareto"));
    assert.ok(page.charts.some((c) => c.id === "chart-bars-ttft_p99"));
    assert.ok(page.charts.some((c) => c.id.startsWith("chart-ratio-")));
    const text = fs.readFileSync(html, "utf8");
    assert.match(text, /Pareto front: e2e_p99 vs tokens_per_sec/);

    // Rebuilt from the directory (report.json) and from summary.json alone.
    const again = path.join(tmp, "sweep-again.html");
    const rb = blis(["report", out, "--out", again]);
    assert.equal(rb.code, 0, rb.stderr);
    assert.equal(fs.readFileSync(again, "utf8"), text, "the rebuilt sweep report equals the original");
    fs.rmSync(path.join(out, "report.json"));
    const fromSummary = path.join(tmp, "from-summary.html");
    const rs = blis(["report", path.join(out, "summary.json"), "--out", fromSummary]);
    assert.equal(rs.code, 0, rs.stderr);
    const page2 = await checkPage(browser, fromSummary, path.join(SHOTS, "sweep-report-from-summary.png"));
    assertRendered(page2, 11);
    // Without a report.json the default Pareto metrics are used.
    assert.match(fs.readFileSync(fromSummary, "utf8"), /Pareto front: ttft_p99 vs throughput/);
  });
});

describe("report errors are one line, exit 1", () => {
  test("blis report on a missing path or a foreign JSON file", () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "blis-report-err-"));
    try {
      const missing = blis(["report", path.join(tmp, "nope.json")]);
      assert.equal(missing.code, 1);
      assert.match(missing.stderr, /^error: .*no such file or directory\n$/);
      const foreign = path.join(tmp, "foreign.json");
      fs.writeFileSync(foreign, JSON.stringify({ hello: 1 }));
      const f = blis(["report", foreign]);
      assert.equal(f.code, 1);
      assert.match(f.stderr, /^error: .*not a report data file/);
      const broken = path.join(tmp, "broken.json");
      fs.writeFileSync(broken, "{");
      const b = blis(["report", broken]);
      assert.equal(b.code, 1);
      assert.match(b.stderr, /^error: .*not valid JSON/);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });

  test("sweep --report needs --out; a bad pareto metric names its line", () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "blis-report-plan-"));
    try {
      const planFile = path.join(tmp, "plan.yaml");
      fs.writeFileSync(planFile, PLAN);
      const noOut = blis(["sweep", planFile, "--report", "--no-progress"]);
      assert.equal(noOut.code, 1);
      assert.match(noOut.stderr, /--report needs --out/);
      fs.writeFileSync(
        planFile,
        PLAN.replace("pareto: [e2e_p99, tokens_per_sec]", "pareto: [e2e_p99, tokens_per_minute]"),
      );
      const bad = blis(["sweep", planFile, "--out", path.join(tmp, "o"), "--no-progress"]);
      assert.equal(bad.code, 2);
      assert.match(bad.stderr, /plan\.yaml:\d+:\d+: report: pareto metric "tokens_per_minute": unknown metric/);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
});
