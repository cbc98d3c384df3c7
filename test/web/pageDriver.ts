// Drives the playground (dist-web/index.html, opened as a file) in headless Chromium: the same
// browser setup as the report tests (test/report/browser.ts).

import path from "node:path";
import { pathToFileURL } from "node:url";
import type { BrowserContext, Page } from "playwright-core";

export const ROOT = path.resolve(import.meta.dirname, "..", "..", "..");
export const INDEX = path.join(ROOT, "dist-web", "index.html");

export interface Opened {
  page: Page;
  errors: string[];
  /** Requests other than the site's own files. */
  foreign: string[];
}

export async function open(browser: BrowserContext, query: string, width = 1280, height = 800): Promise<Opened> {
  const page = await browser.newPage();
  await page.setViewportSize({ width, height });
  const errors: string[] = [];
  const foreign: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
  });
  page.on("pageerror", (e) => errors.push(e.message));
  const base = pathToFileURL(path.dirname(INDEX)).href;
  page.on("request", (r) => {
    if (!r.url().startsWith(base) && !r.url().startsWith("blob:")) foreign.push(r.url());
  });
  await page.goto(`${pathToFileURL(INDEX).href}${query === "" ? "" : "?" + query}`, {
    waitUntil: "load",
    timeout: 120_000,
  });
  return { page, errors, foreign };
}

/** Waits until <body data-state> is one of `states`; returns it. */
export async function waitState(page: Page, states: string[], timeout = 120_000): Promise<string> {
  await page.waitForFunction(`${JSON.stringify(states)}.includes(document.body.dataset.state)`, undefined, { timeout });
  return (await page.evaluate("document.body.dataset.state")) as string;
}

export interface CardValue {
  metric: string;
  /** The value as `blis run` prints it. */
  value: string;
  /** The card's text (label, value, unit). */
  text: string;
  /** The number shown on the card. */
  shown: string;
}

export async function cards(page: Page): Promise<CardValue[]> {
  return (await page.evaluate(`[...document.querySelectorAll("#cards [data-metric]")].map((c) => ({
    metric: c.dataset.metric, value: c.dataset.value, text: c.textContent, shown: c.querySelector(".v").firstChild.textContent,
  }))`)) as CardValue[];
}

/** The URL query string of a list of `blis run` arguments (--name value pairs). */
export function queryOf(args: string[]): string {
  const q = new URLSearchParams();
  for (let i = 0; i < args.length; i += 2) q.append(args[i]!.replace(/^--/, ""), args[i + 1]!);
  return q.toString();
}

/** Charts on the page that have a canvas with painted pixels, and those without. */
export async function chartPaint(page: Page, selector: string): Promise<{ painted: number; blank: string[] }> {
  return (await page.evaluate(`(() => {
    const blank = []; let painted = 0;
    for (const cv of document.querySelectorAll(${JSON.stringify(selector)} + " canvas")) {
      const img = cv.getContext("2d").getImageData(0, 0, cv.width, cv.height).data;
      let n = 0; for (let i = 3; i < img.length; i += 4) if (img[i] > 0) n++;
      if (n > 500) painted++; else blank.push(cv.id);
    }
    return { painted, blank };
  })()`)) as { painted: number; blank: string[] };
}
