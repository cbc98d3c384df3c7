// A routing sweep on 4 instances: the sweep report draws the requests routed to each instance, one
// bar per instance and configuration, so the collapse of always-busiest (everything on one
// instance) shows. Through the CLI, opened in headless Chromium; the sweep's stdout is unchanged.

import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { BrowserContext } from "playwright-core";
import { checkPage, launch } from "./browser.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const BIN = path.join(ROOT, "dist/src/cli/bin.js");
const SHOTS = path.join(ROOT, "test-output/screenshots");

function blis(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, encoding: "utf8", timeout: 180_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const PLAN = `name: routing-instances
seeds: [1, 2]
timeout_s: 120
base:
  flags:
    model: meta-llama/llama-3.1-8b-instruct
    num-instances: 4
    num-requests: 120
    rate: 40
    log: error
axes:
  - name: routing
    flag: routing-policy
    values: [round-robin, least-loaded, always-busiest]
metrics: [ttft_p99, throughput]
`;

interface Series {
  label: string;
  values: (number | null)[];
}

/** The datasets of the per-instance chart as the page's Chart.js instance holds them. */
async function instanceSeries(
  browser: BrowserContext,
  file: string,
): Promise<{ labels: string[]; series: Series[]; table: string[][] }> {
  const page = await browser.newPage();
  await page.goto(pathToFileURL(file).href, { waitUntil: "load" });
  await page.waitForFunction(
    `window.blisReport !== undefined && window.blisReport.rendered >= window.blisReport.expected`,
  );
  const out = (await page.evaluate(`(() => {
    const c = window.blisReport.charts.find((x) => x.canvas.id === "chart-inst-routed");
    if (c === undefined) return null;
    const num = (v) => (v === null || v === undefined ? null : typeof v === "number" ? v : v.y);
    return {
      labels: c.data.labels,
      series: c.data.datasets.map((d) => ({ label: d.label, values: d.data.map(num) })),
      table: [...document.querySelectorAll("#instances table tbody tr")].map((tr) => [...tr.querySelectorAll("td")].map((td) => td.innerText.trim())),
    };
  })()`)) as { labels: string[]; series: Series[]; table: string[][] } | null;
  await page.close();
  assert.ok(out !== null, "the page has a chart chart-inst-routed");
  return out;
}

function assertFourInstances(got: { labels: string[]; series: Series[]; table: string[][] }): void {
  assert.deepEqual(got.labels, ["routing=round-robin", "routing=least-loaded", "routing=always-busiest"]);
  assert.deepEqual(
    got.series.map((s) => s.label),
    ["instance_0", "instance_1", "instance_2", "instance_3"],
    "one series per instance",
  );
  for (const s of got.series)
    assert.equal(s.values.filter((v) => v !== null).length, 3, `${s.label}: a bar per configuration`);
  // Round-robin splits 120 requests evenly; always-busiest sends every one to instance 0.
  assert.deepEqual(
    got.series.map((s) => s.values[0]),
    [30, 30, 30, 30],
  );
  assert.deepEqual(
    got.series.map((s) => s.values[2]),
    [120, 0, 0, 0],
  );
  const busiest = got.table.find((r) => r[0] === "routing=always-busiest");
  assert.ok(busiest !== undefined);
  assert.equal(busiest[busiest.length - 1], "4.00", "max ÷ mean: everything on one of four");
}

describe("sweep report: requests routed per instance", () => {
  let browser: BrowserContext;
  let close: () => Promise<void>;
  let tmp: string;

  before(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), "blis-sweep-instances-"));
    ({ browser, close } = await launch());
  });
  after(async () => {
    await close?.();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  test("blis sweep --report draws one bar per instance; blis report DIR rebuilds it from runs.jsonl", async () => {
    const planFile = path.join(tmp, "plan.yaml");
    fs.writeFileSync(planFile, PLAN);
    const out = path.join(tmp, "out");
    const r = blis(["sweep", planFile, "--out", out, "--report", "--jobs", "2", "--no-progress"]);
    assert.equal(r.code, 0, r.stderr);
    const plain = blis(["sweep", planFile, "--out", path.join(tmp, "plain"), "--jobs", "2", "--no-progress"]);
    assert.equal(plain.stdout, r.stdout, "the report does not change the sweep's stdout");

    const html = path.join(out, "report.html");
    const page = await checkPage(browser, html, path.join(SHOTS, "sweep-instances.png"));
    assert.deepEqual(page.consoleErrors, []);
    assert.deepEqual(page.pageErrors, []);
    assert.equal(page.rendered, page.expected);
    const chart = page.charts.find((c) => c.id === "chart-inst-routed");
    assert.ok(chart !== undefined && chart.painted > 500, `the chart is drawn: ${JSON.stringify(chart)}`);
    assert.equal(chart.points, 12, "4 instances × 3 configurations");
    assertFourInstances(await instanceSeries(browser, html));

    // A report.json without the counts (written before they were saved): taken from the run records.
    const saved = JSON.parse(fs.readFileSync(path.join(out, "report.json"), "utf8")) as Record<string, unknown>;
    delete saved["instances"];
    fs.writeFileSync(path.join(out, "report.json"), JSON.stringify(saved));
    const older = path.join(tmp, "older.html");
    assert.equal(blis(["report", out, "--out", older]).code, 0);
    assertFourInstances(await instanceSeries(browser, older));

    // Without report.json the counts come from the run records too.
    fs.rmSync(path.join(out, "report.json"));
    const again = path.join(tmp, "again.html");
    const rb = blis(["report", out, "--out", again]);
    assert.equal(rb.code, 0, rb.stderr);
    assertFourInstances(await instanceSeries(browser, again));
  });
});
