// Where the report tests find a headless Chromium; scripts/ensureBrowser.mjs (run by `npm test`
// before the tests) uses the same lookup to decide whether to install one.

import fs from "node:fs";
import { chromium } from "playwright-core";

const SYSTEM = [
  "/usr/bin/chromium",
  "/usr/bin/chromium-browser",
  "/usr/bin/google-chrome",
  "/usr/bin/google-chrome-stable",
];

/** Playwright's own Chromium build, when `playwright-core install chromium` has fetched it. */
export function playwrightChromium(): string | null {
  try {
    const p = chromium.executablePath();
    return fs.existsSync(p) ? p : null;
  } catch {
    return null;
  }
}

/** The browser to launch: BLIS_CHROMIUM, else a system Chromium or Chrome, else Playwright's download. */
export function findBrowser(): string | null {
  const env = process.env["BLIS_CHROMIUM"];
  if (env !== undefined && env !== "") return fs.existsSync(env) ? env : null;
  return SYSTEM.find((p) => fs.existsSync(p)) ?? playwrightChromium();
}
