// Part of `npm test`, after the build: the HTML-report tests open reports in a real headless Chromium, so a
// fresh machine gets one here. Order: a browser already present (BLIS_CHROMIUM, Debian's
// chromium, Chrome), else Debian's chromium package through apt-get when we are root (or sudo
// needs no password), else Playwright's own Chromium build downloaded through npm's
// playwright-core. The lookup is the tests' own (test/report/browserPath.ts, compiled).
import fs from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { findBrowser, playwrightChromium } from "../dist/test/report/browserPath.js";

function run(cmd, args) {
  console.error(`pretest: ${cmd} ${args.join(" ")}`);
  return (
    spawnSync(cmd, args, {
      stdio: ["ignore", "inherit", "inherit"],
      env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
    }).status === 0
  );
}

function aptInstall() {
  if (!fs.existsSync("/usr/bin/apt-get")) return false;
  const root = typeof process.getuid === "function" && process.getuid() === 0;
  const prefix = root ? [] : spawnSync("sudo", ["-n", "true"]).status === 0 ? ["sudo", "-n"] : null;
  if (prefix === null) return false;
  const [cmd, ...pre] = prefix.length > 0 ? prefix : ["apt-get"];
  const args = (extra) => (prefix.length > 0 ? [...pre, "apt-get", ...extra] : extra);
  return run(cmd, args(["update", "-qq"])) && run(cmd, args(["install", "-y", "-qq", "chromium"]));
}

function playwrightInstall() {
  return (
    run(process.execPath, [
      path.join(path.dirname(fileURLToPath(import.meta.resolve("playwright-core/package.json"))), "cli.js"),
      "install",
      "chromium",
    ]) && fs.existsSync(playwrightChromium() ?? "")
  );
}

if (findBrowser() === null) {
  console.error("pretest: no Chromium found; the report tests need one, installing it");
  if (!(aptInstall() && findBrowser() !== null) && !playwrightInstall()) {
    console.error(
      "pretest: could not install a browser. Install Debian's chromium (apt-get install -y chromium), " +
        "or run `npx playwright-core install --with-deps chromium`, or set BLIS_CHROMIUM to a Chromium binary.",
    );
    process.exit(1);
  }
}
console.error(`pretest: report tests use ${findBrowser()}`);
