// A sweep over a serving choice (KV blocks) and the offered load (rate): the Pareto front is drawn
// per load level, so the best configuration at the higher rate is not "dominated" by one at the
// lower rate; a count metric that is 0 at the baseline has no ratio ("n/a (baseline 0)"), never a
// "significant" change of 1000× per unit. Through the CLI, and the report opened in Chromium.

import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { BrowserContext } from "playwright-core";
import { checkPage, launch } from "./browser.js";
import { coordsOfLabel, paretoGroupOf } from "../../src/report/sweepGroups.js";
import { verdict } from "../../src/experiment/reportRatios.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const BIN = path.join(ROOT, "dist/src/cli/bin.js");
const SHOTS = path.join(ROOT, "test-output/screenshots");

function blis(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, encoding: "utf8", timeout: 180_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

// The load axis is named "rps" (not a load-like name): the plan's axis kind (flag rate) decides.
const PLAN = `name: pareto-groups
seeds: [1, 2]
timeout_s: 120
base:
  flags:
    model: meta-llama/llama-3.1-8b-instruct
    num-requests: 60
    log: error
axes:
  - name: kv
    flag: total-kv-blocks
    values: [50000, 120]
  - name: rps
    flag: rate
    values: [2, 60]
baseline: kv=50000
metrics: [preemption_count, ttft_p99, e2e_p99]
report:
  pareto: [ttft_p99, e2e_p99]
`;

/** The Pareto table's rows as text cells, read from the page the way a reader sees them. */
async function paretoRows(browser: BrowserContext, file: string): Promise<string[][]> {
  const page = await browser.newPage();
  await page.goto(pathToFileURL(file).href, { waitUntil: "load" });
  const rows = (await page.evaluate(
    `[...document.querySelectorAll("#pareto table tbody tr")].map((tr) => [...tr.querySelectorAll("td")].map((td) => td.innerText.trim()))`,
  )) as string[][];
  await page.close();
  return rows;
}

function statusOf(rows: string[][], config: string): string {
  const row = rows.find((r) => r[0] === config);
  assert.ok(row !== undefined, `no Pareto row for ${config}: ${JSON.stringify(rows)}`);
  return row[row.length - 1]!;
}

describe("sweep report: Pareto fronts per load level, ratios against a zero baseline", () => {
  let browser: BrowserContext;
  let close: () => Promise<void>;
  let tmp: string;

  before(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), "blis-pareto-groups-"));
    ({ browser, close } = await launch());
  });
  after(async () => {
    await close?.();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  test("blis sweep --report and blis report DIR", async () => {
    const planFile = path.join(tmp, "plan.yaml");
    fs.writeFileSync(planFile, PLAN);
    const out = path.join(tmp, "out");
    const r = blis(["sweep", planFile, "--out", out, "--report", "--jobs", "2", "--no-progress"]);
    assert.equal(r.code, 0, r.stderr);

    // Ratios: preemptions are 0 with 50000 blocks and > 200 with 120.
    const rows = r.stdout.split("\n").filter((l) => /^vs baseline kv=50000 +preemption_count /.test(l));
    assert.equal(rows.length, 2, r.stdout);
    for (const row of rows) {
      assert.match(
        row,
        /preemption_count +kv=120,rps=\d+ +kv=50000,rps=\d+ +n\/a \(baseline 0\) +- +- +0\/0 +0\/0 +n\/a \(baseline 0\) +n\/a \(baseline 0\) n\/a \(baseline 0\)$/,
      );
      assert.doesNotMatch(row, /significant|\d{4,}\.\d{3}/);
    }
    // The other metrics keep their ratios and verdicts.
    assert.match(r.stdout, /vs baseline kv=50000 +ttft_p99 +kv=120,rps=2 +kv=50000,rps=2 +\d+\.\d{3} .* significant /);

    const html = path.join(out, "report.html");
    const page = await checkPage(browser, html, path.join(SHOTS, "sweep-pareto-groups.png"));
    assert.deepEqual(page.consoleErrors, []);
    assert.deepEqual(page.pageErrors, []);
    assert.equal(page.rendered, page.expected);
    const paretoRowsOf = async (file: string): Promise<void> => {
      const t = await paretoRows(browser, file);
      assert.equal(t.length, 4);
      // Each load level has its own front: the large cache wins at both rates.
      assert.equal(statusOf(t, "kv=50000,rps=2"), "non-dominated");
      assert.equal(
        statusOf(t, "kv=50000,rps=60"),
        "non-dominated",
        "not dominated by a configuration at the lower rate",
      );
      assert.equal(statusOf(t, "kv=120,rps=2"), "dominated");
      assert.equal(statusOf(t, "kv=120,rps=60"), "dominated");
      assert.equal(t.find((x) => x[0] === "kv=50000,rps=60")![1], "rps=60", "the group column");
    };
    await paretoRowsOf(html);
    assert.match(fs.readFileSync(html, "utf8"), /Fronts are drawn per value of the load axis <code>rps<\/code>/);

    // Rebuilt from the directory without report.json: the load axis comes from the plan.
    fs.rmSync(path.join(out, "report.json"));
    const again = path.join(tmp, "again.html");
    const rb = blis(["report", out, "--out", again]);
    assert.equal(rb.code, 0, rb.stderr);
    await paretoRowsOf(again);
  });
});

test("configuration labels are split into axis values even when a value has commas", () => {
  const axes = [
    { name: "scorers", values: ["queue-depth:1", "prefix-affinity:3,queue-depth:2"] },
    { name: "rate", values: ["10", "100"] },
  ];
  assert.deepEqual(coordsOfLabel("scorers=prefix-affinity:3,queue-depth:2,rate=100", axes), {
    scorers: "prefix-affinity:3,queue-depth:2",
    rate: "100",
  });
  assert.equal(coordsOfLabel("scorers=other,rate=100", axes), null);
  const groups = paretoGroupOf(
    ["scorers=queue-depth:1,rate=10", "scorers=prefix-affinity:3,queue-depth:2,rate=10"],
    axes,
    ["rate"],
  );
  assert.deepEqual([...groups.values()], ["rate=10", "rate=10"]);
});

test("a zero denominator is never a significant change", () => {
  assert.equal(verdict([[108, 0]]), "n/a (baseline 0)");
  assert.equal(
    verdict([
      [108, 0],
      [120, 100],
    ]),
    "n/a (baseline 0)",
  );
  // 0 against 0 is no change.
  assert.equal(
    verdict([
      [0, 0],
      [0, 0],
    ]),
    "equivalent",
  );
  assert.equal(
    verdict([
      [0, 0],
      [50, 100],
      [40, 100],
    ]),
    "inconclusive",
  );
  // A positive denominator keeps the spec's rule.
  assert.equal(
    verdict([
      [300, 100],
      [250, 100],
    ]),
    "significant",
  );
});
