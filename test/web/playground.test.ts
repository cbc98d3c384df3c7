// End-to-end: the playground (dist-web/index.html, opened as a file in headless Chromium) runs a
// configuration from its URL and shows the numbers `blis run` prints for it; an invalid field
// shows the CLI's message and nothing runs; compare mode and the rate sweep; layout at desktop
// and phone width. Screenshots go to test-output/screenshots/.

import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { BrowserContext } from "playwright-core";
import { launch } from "../report/browser.js";
import { cli, clusterBlock } from "../helpers/cli.js";
import { cards, chartPaint, open, queryOf, ROOT, waitState } from "./pageDriver.js";

const SHOTS = path.join(ROOT, "test-output", "screenshots");
const MODEL = "meta-llama/llama-3.1-8b-instruct";
/** Two instances, weighted routing, a shared prefix and a small KV cache: cache hits and preemptions. */
const ARGS = [
  "--model",
  MODEL,
  "--num-requests",
  "400",
  "--seed",
  "7",
  "--rate",
  "12",
  "--num-instances",
  "2",
  "--routing-policy",
  "weighted",
  "--prefix-tokens",
  "256",
  "--total-kv-blocks",
  "1200",
];

/** The number shown on a card equals the printed one rounded to the digits shown. */
function sameToShownPrecision(shown: string, printed: string): boolean {
  const digits = shown.includes(".") ? shown.split(".")[1]!.length : 0;
  return Number(printed).toFixed(digits) === shown;
}

describe("playground", { timeout: 300_000 }, () => {
  let browser: BrowserContext;
  let close: () => Promise<void>;
  before(async () => {
    ({ browser, close } = await launch());
    fs.mkdirSync(SHOTS, { recursive: true });
  });
  after(async () => close());

  test("a configuration in the URL runs on load and every card equals `blis run`", async () => {
    const expected = await cli(["run", ...ARGS]);
    assert.equal(expected.code, 0, expected.stderr.join("\n"));
    const block = clusterBlock(expected.stdout);
    const { page, errors, foreign } = await open(browser, `${queryOf(ARGS)}&run=1`);
    assert.equal(await waitState(page, ["done", "invalid"]), "done");
    // The page's `blis run` output is the CLI's, byte for byte.
    assert.equal(await page.textContent("#stdout"), expected.stdout);
    const shown = await cards(page);
    assert.ok(shown.length >= 15, `${shown.length} cards`);
    const hit = /Cache Hit Rate: (\S+)/.exec(expected.stdout);
    // Sustained throughput is not a `blis run` key: the run's report data holds it.
    const reportDir = fs.mkdtempSync(path.join(os.tmpdir(), "blis-playground-"));
    assert.equal((await cli(["run", ...ARGS, "--report", path.join(reportDir, "r.html")])).code, 0);
    const reported = JSON.parse(fs.readFileSync(path.join(reportDir, "r.json"), "utf8")) as {
      metrics: { sustainedResponsesPerSec: number };
    };
    const sustained = JSON.stringify(reported.metrics.sustainedResponsesPerSec);
    for (const c of shown) {
      const printed =
        c.metric === "cache_hit_rate"
          ? (hit?.[1] ?? "0.0000")
          : c.metric === "sustained_responses_per_sec"
            ? sustained
            : JSON.stringify(block[c.metric]);
      assert.equal(c.value, printed, `${c.metric}: data-value`);
      assert.ok(
        sameToShownPrecision(c.shown, printed),
        `${c.metric}: card shows ${c.shown}, blis run printed ${printed}`,
      );
    }
    assert.ok(
      Number(block["preemption_count"]) > 0 && Number(hit?.[1]) > 0,
      "the configuration exercises preemption and cache hits",
    );
    // The command line gives the same flags (in the order the CLI defines them).
    const command = (await page.textContent("#command"))!.split(" ");
    assert.deepEqual(command.slice(0, 3), ["npx", "blis", "run"]);
    const pairs = (a: string[]): string[] => a.flatMap((x, i) => (i % 2 === 0 ? [`${x} ${a[i + 1]}`] : [])).sort();
    assert.deepEqual(pairs(command.slice(3)), pairs(ARGS));
    const charts = await chartPaint(page, "#sections");
    assert.deepEqual(charts.blank, []);
    assert.ok(charts.painted >= 8, `${charts.painted} charts drawn`);
    assert.deepEqual(errors, []);
    assert.deepEqual(foreign, [], "the page loads nothing from elsewhere");
    await page.screenshot({ path: path.join(SHOTS, "playground-run.png"), fullPage: true });
    await page.close();
  });

  test("an invalid field shows the CLI's message next to it and nothing runs", async () => {
    const bad = await cli(["run", "--model", MODEL, "--rate", "fast"]);
    const { page, errors } = await open(browser, `model=${MODEL}&rate=fast&num-requests=50&run=1`);
    assert.equal(await waitState(page, ["done", "invalid"]), "invalid");
    assert.equal(await page.textContent("#err-rate"), bad.stderr[0]);
    assert.equal(await page.getAttribute("#f-rate", "aria-invalid"), "true");
    assert.equal(await page.isHidden("#results"), true, "no results");
    // A rule checked before the simulation starts (not while parsing) is the CLI's too.
    const cross = await cli(["run", "--model", MODEL, "--num-instances", "0"]);
    await page.fill("#f-rate", "");
    await page.fill("#f-num-instances", "0");
    await page.click("#run");
    await waitState(page, ["invalid"]);
    await page.waitForFunction(`document.querySelector("#err-num-instances").textContent !== ""`);
    assert.equal(await page.textContent("#err-num-instances"), cross.stderr[0]);
    assert.equal(await page.isHidden("#err-rate"), true, "the fixed field's message is gone");
    assert.equal(await page.isHidden("#results"), true);
    assert.match(page.url(), /num-instances=0/);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test("compare mode: pin a baseline, change one flag, run again: both with deltas", async () => {
    const { page, errors } = await open(browser, `model=${MODEL}&num-requests=200&rate=8&run=1`);
    await waitState(page, ["done"]);
    await page.click("#pin");
    await page.fill("#f-rate", "16");
    // Enter in a field runs (the form's submit button).
    await page.press("#f-rate", "Enter");
    await page.waitForFunction(
      `document.querySelector("#compare-body ul.diff") !== null && document.body.dataset.state === "done"`,
    );
    const expected = clusterBlock(
      (await cli(["run", "--model", MODEL, "--num-requests", "200", "--rate", "16"])).stdout,
    );
    const rows = (await page.$$eval("#compare-table tbody tr", (trs) =>
      trs.map((tr) => [tr.getAttribute("data-metric"), ...[...tr.querySelectorAll("td")].map((td) => td.textContent)]),
    )) as string[][];
    const tput = rows.find((r) => r[0] === "responses_per_sec")!;
    assert.ok(sameToShownPrecision(tput[2]!, String(expected["responses_per_sec"])), `current ${tput[2]}`);
    assert.notEqual(tput[1], tput[2], "baseline and current differ");
    assert.match(tput[3]!, /^[+−]\d/);
    assert.match((await page.textContent("#compare-body ul.diff"))!, /--rate 8 → 16/);
    const deltas = await page.$$eval("#cards .d", (ds) => ds.length);
    assert.ok(deltas >= 15, `${deltas} cards with a delta`);
    assert.deepEqual((await chartPaint(page, "#compare")).blank, []);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test("rate sweep: the latency-throughput curve and the highest rate meeting the SLO", async () => {
    const q = `model=${MODEL}&sweep-from=4&sweep-to=100&sweep-points=4&sweep-requests=300&sweep-slo-ttft-p99-ms=200&sweep-slo-itl-p99-ms=25`;
    const { page, errors } = await open(browser, q);
    await waitState(page, ["ready"]);
    await page.click("#sweep-run");
    await page.waitForFunction(`["done", "invalid"].includes(document.body.dataset.sweep)`, undefined, {
      timeout: 120_000,
    });
    assert.equal(await page.evaluate("document.body.dataset.sweep"), "done");
    const rows = (await page.$$eval("#sweep-table tbody tr", (trs) =>
      trs.map((tr) => [
        tr.getAttribute("data-rate"),
        tr.getAttribute("data-ok"),
        ...[...tr.querySelectorAll("td")].map((td) => td.textContent),
      ]),
    )) as string[][];
    assert.deepEqual(
      rows.map((r) => r[0]),
      ["4", "36", "68", "100"],
    );
    // Each point is the CLI's run at that rate.
    const at100 = clusterBlock((await cli(["run", "--model", MODEL, "--rate", "100", "--num-requests", "300"])).stdout);
    assert.ok(sameToShownPrecision(rows[3]![5]!, String(at100["ttft_p99_ms"])), `TTFT p99 at 100: ${rows[3]![5]}`);
    assert.equal(rows[0]![1], "true", "the lowest rate meets the SLO");
    assert.equal(rows[3]![1], "false", "the highest rate misses it");
    const lastOk = [...rows].reverse().find((r) => r[1] === "true")!;
    assert.match((await page.textContent("#sweep-answer"))!, new RegExp(`meeting the SLO .*: ${lastOk[0]} req/s`));
    assert.deepEqual((await chartPaint(page, "#sweep")).blank, []);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test("an uploaded workload spec runs as --workload-spec: the same stdout as `blis run`", async () => {
    const spec = path.join(ROOT, "examples", "multiturn-chat-demo.yaml");
    const expected = await cli(["run", "--model", MODEL, "--workload-spec", spec, "--num-requests", "200"]);
    assert.equal(expected.code, 0, expected.stderr.join("\n"));
    const { page, errors } = await open(browser, `model=${MODEL}&num-requests=200`);
    await waitState(page, ["ready"]);
    await page.click("details.spec > summary");
    await page.setInputFiles("#spec-upload", spec);
    await page.waitForFunction(`document.querySelector("#f-workload-spec-yaml").value.includes("multi-turn-chat")`);
    await page.click("#run");
    assert.equal(await waitState(page, ["done", "invalid"]), "done");
    assert.equal(await page.textContent("#stdout"), expected.stdout);
    assert.match((await page.textContent("#command"))!, /--workload-spec workload\.yaml/);
    // The spec travels in the URL, so the link reproduces the run.
    assert.match(decodeURIComponent(page.url()), /workload-spec-yaml=.*multi-turn-chat/s);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test("a running simulation shows its progress and can be cancelled; the next run works", async () => {
    const { page, errors } = await open(browser, `model=${MODEL}&num-requests=2000000&rate=200`);
    await waitState(page, ["ready"]);
    await page.waitForFunction(`document.querySelector("#command").textContent !== ""`);
    await page.click("#run");
    await page.waitForFunction(
      `document.body.dataset.state === "running" && document.querySelector("#progress").value > 0`,
    );
    assert.match((await page.textContent("#status"))!, /^Running… \d+ requests completed/);
    await page.click("#cancel");
    assert.equal(await waitState(page, ["cancelled"]), "cancelled");
    assert.equal(await page.textContent("#status"), "Cancelled.");
    assert.equal(await page.isHidden("#results"), true);
    await page.fill("#f-num-requests", "50");
    await page.click("#run");
    assert.equal(await waitState(page, ["done", "invalid"]), "done");
    const completed = (await cards(page)).find((c) => c.metric === "completed_requests");
    assert.equal(completed?.value, "50");
    assert.deepEqual(errors, []);
    await page.close();
  });

  test("labelled fields, no horizontal scrolling at desktop and phone width", async () => {
    for (const [w, h] of [
      [1280, 800],
      [390, 844],
    ] as const) {
      const { page } = await open(browser, `model=${MODEL}&num-requests=100&run=1`, w, h);
      await waitState(page, ["done"]);
      const unlabelled = (await page.evaluate(`[...document.querySelectorAll("input, select, textarea")]
        .filter((e) => e.id === "" || document.querySelector('label[for="' + e.id + '"]') === null)
        .map((e) => e.outerHTML.slice(0, 80))`)) as string[];
      assert.deepEqual(unlabelled, []);
      // Keyboard: the first Tab reaches the skip link, which moves focus to the results; the next
      // Tabs go through the form's controls.
      await page.evaluate("document.activeElement.blur()");
      await page.keyboard.press("Tab");
      assert.equal(await page.evaluate("document.activeElement.className"), "skip");
      await page.keyboard.press("Enter");
      assert.equal(await page.evaluate("document.activeElement.id"), "results-area");
      await page.focus("#run");
      await page.keyboard.press("Tab");
      assert.equal(await page.evaluate("document.activeElement.id"), "reset", "Cancel is skipped while disabled");
      await page.keyboard.press("Tab");
      assert.equal(await page.evaluate("document.activeElement.id"), "f-model");
      const over = (await page.evaluate(
        "document.documentElement.scrollWidth - document.documentElement.clientWidth",
      )) as number;
      assert.ok(over <= 0, `${w}px: the page scrolls ${over}px sideways`);
      await page.screenshot({ path: path.join(SHOTS, `playground-${w}.png`) });
      await page.close();
    }
  });

  test("the 10,000-request default run finishes in the page", async () => {
    const { page } = await open(browser, `model=${MODEL}&num-requests=10000`);
    await waitState(page, ["ready"]);
    await page.waitForFunction(`document.querySelector("#command").textContent !== ""`);
    const t0 = Date.now();
    await page.click("#run");
    await waitState(page, ["done"]);
    const ms = Date.now() - t0;
    console.log(`playground: 10,000-request default run took ${ms} ms in the page`);
    // A loose bound (shared test machines); the figure itself is logged.
    assert.ok(ms < 15_000, `${ms} ms`);
    await page.close();
  });
});
