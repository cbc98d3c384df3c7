// Opens report pages in a headless Chromium (browserPath.ts says which) through playwright-core and checks what a
// reader would see: every chart drawn, no console errors, no network requests.

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { chromium, type BrowserContext } from "playwright-core";
import { findBrowser } from "./browserPath.js";

export interface ChartCheck {
  id: string;
  width: number;
  height: number;
  /** Canvas pixels with any opacity. */
  painted: number;
  /** Data points the chart holds over all its datasets. */
  points: number;
}

export interface PageCheck {
  expected: number;
  rendered: number;
  failed: string[];
  canvases: number;
  charts: ChartCheck[];
  consoleErrors: string[];
  pageErrors: string[];
  /** Every request after the initial file load. */
  requests: string[];
  title: string;
  screenshot: string;
}

/**
 * Launches Chromium with a fresh profile directory (Playwright passes it as --user-data-dir);
 * fails loudly when Chromium is not installed.
 */
export async function launch(): Promise<{ browser: BrowserContext; close: () => Promise<void> }> {
  const executablePath = findBrowser();
  if (executablePath === null) {
    throw new Error("no Chromium found: `npm test` installs one (scripts/ensureBrowser.mjs); or set BLIS_CHROMIUM");
  }
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "blis-chromium-"));
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    viewport: { width: 1280, height: 900 },
    deviceScaleFactor: 1,
    timeout: 120_000,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  return {
    browser,
    close: async () => {
      await browser.close();
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}

// Evaluated in the page (as source text: this project compiles without DOM types).
const READY = `(() => { const s = window.blisReport; return s !== undefined && s.rendered + s.failed.length >= s.expected; })()`;
const INSPECT = `(() => {
  const s = window.blisReport;
  const charts = s.charts.map((c) => {
    const cv = c.canvas;
    const img = cv.getContext("2d").getImageData(0, 0, cv.width, cv.height).data;
    let painted = 0;
    for (let i = 3; i < img.length; i += 4) if (img[i] > 0) painted++;
    const points = c.data.datasets.reduce((n, d) => n + d.data.filter((v) => v !== null && v !== undefined).length, 0);
    return { id: cv.id, width: cv.width, height: cv.height, painted, points };
  });
  return { expected: s.expected, rendered: s.rendered, failed: s.failed, canvases: document.querySelectorAll("canvas").length, charts, title: document.title };
})()`;

/** Loads a report file, waits for its charts and takes a full-page screenshot. */
export async function checkPage(
  browser: BrowserContext,
  file: string,
  screenshot: string,
  width = 1280,
): Promise<PageCheck> {
  const page = await browser.newPage();
  await page.setViewportSize({ width, height: 900 });
  const url = pathToFileURL(path.resolve(file)).href;
  const consoleErrors: string[] = [];
  const pageErrors: string[] = [];
  const requests: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error") consoleErrors.push(m.text());
  });
  page.on("pageerror", (e) => pageErrors.push(e.message));
  page.on("request", (r) => {
    if (r.url() !== url) requests.push(r.url());
  });
  // Generous limits: the first launch on a fresh machine also builds Chromium's font caches.
  await page.goto(url, { waitUntil: "load", timeout: 120_000 });
  await page.waitForFunction(READY, undefined, { timeout: 120_000 });
  const state = (await page.evaluate(INSPECT)) as Omit<
    PageCheck,
    "consoleErrors" | "pageErrors" | "requests" | "screenshot"
  >;
  fs.mkdirSync(path.dirname(screenshot), { recursive: true });
  await page.screenshot({ path: screenshot, fullPage: true });
  await page.close();
  return { ...state, consoleErrors, pageErrors, requests, screenshot };
}
