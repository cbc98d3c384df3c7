// The playground as `blis playground` serves it, loaded in headless Chromium: no console error and
// no failed request on load (a browser asks the server for /favicon.ico unless the page names an
// icon), the model field offers the bundled models, and no flag that reads or writes a file is
// offered (README.md "Playground in the browser").

import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import type { BrowserContext } from "playwright-core";
import { launch } from "../report/browser.js";
import { ROOT, waitState } from "./pageDriver.js";
import { RUN_INPUT_FLAGS } from "../../src/cli/inputPaths.js";

const BIN = path.join(ROOT, JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")).bin.blis as string);

/** Flags that write files or load code, besides the input files of RUN_INPUT_FLAGS. */
const OTHER_FILE_FLAGS = ["--results-path", "--report", "--saturation-report", "--plugin", "--plugin-option"];

/** Starts `blis playground --port 0` and resolves with its address. */
function serve(): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [BIN, "playground", "--port", "0"], { stdio: ["ignore", "pipe", "pipe"] });
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (b: Buffer) => {
      out += b.toString();
      const m = /^Playground: (http:\/\/127\.0\.0\.1:\d+\/)\n/.exec(out);
      if (m) resolve({ child, url: m[1]! });
    });
    child.once("exit", (code) => reject(new Error(`blis playground exited ${code}: ${out}`)));
  });
}

describe("the served playground in Chromium", { timeout: 300_000 }, () => {
  let browser: BrowserContext;
  let close: () => Promise<void>;
  let server: { child: ChildProcess; url: string };
  before(async () => {
    ({ browser, close } = await launch());
    server = await serve();
  });
  after(async () => {
    const exited = new Promise((resolve) => server.child.once("exit", resolve));
    server.child.kill("SIGTERM");
    await exited;
    await close();
  });

  test("loads with no console error and no failed request; offers the bundled models; hides file flags", async () => {
    const page = await browser.newPage();
    const consoleErrors: string[] = [];
    const failed: string[] = [];
    page.on("console", (m) => {
      if (m.type() === "error") consoleErrors.push(m.text());
    });
    page.on("pageerror", (e) => consoleErrors.push(e.message));
    page.on("response", (r) => {
      if (r.status() >= 400) failed.push(`${r.status()} ${r.url()}`);
    });
    page.on("requestfailed", (r) => failed.push(`failed ${r.url()}`));
    await page.goto(server.url, { waitUntil: "networkidle", timeout: 120_000 });
    assert.equal(await waitState(page, ["ready"]), "ready");
    await page.waitForLoadState("networkidle");
    assert.deepEqual(failed, [], "requests that failed");
    assert.deepEqual(consoleErrors, [], "console errors");

    // The model field is tied to a list of the bundled models that can run.
    const offered = (await page.evaluate(
      `(() => { const i = document.getElementById("f-model"); return i.list === null ? null : [...i.list.options].map((o) => o.value); })()`,
    )) as string[] | null;
    assert.ok(offered !== null, "the model field has a list of models");
    const catalog = JSON.parse(spawnSync(process.execPath, [BIN, "models", "--json"], { encoding: "utf8" }).stdout) as {
      model: string;
      config: string;
      blackbox: string[];
    }[];
    const runnable = catalog.filter((m) => m.config !== "" || m.blackbox.length > 0).map((m) => m.model);
    assert.deepEqual(offered, runnable);
    assert.ok(offered.includes("meta-llama/llama-3.1-8b-instruct"));

    // No field for a flag that reads or writes a file.
    const names = (await page.evaluate(
      `[...document.querySelectorAll("#fields [name]")].map((e) => e.getAttribute("name"))`,
    )) as string[];
    assert.ok(names.includes("model") && names.includes("rate"), names.join(" "));
    for (const flag of [...RUN_INPUT_FLAGS, ...OTHER_FILE_FLAGS]) {
      assert.ok(!names.includes(flag.slice(2)), `${flag} is offered by the page`);
    }
    await page.close();
  });
});
