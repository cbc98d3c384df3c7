// The run report of a flow-controlled run: the gateway section with the queue depth per band,
// drawn in headless Chromium, and a report rebuilt from its saved data.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { BrowserContext } from "playwright-core";
import { checkPage, launch } from "./browser.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const BIN = path.join(ROOT, "dist/src/cli/bin.js");
const ARGS = [
  "run",
  "--model",
  "meta-llama/llama-3.1-8b-instruct",
  "--workload-spec",
  "examples/overload-tiers-workload.yaml",
  "--num-requests",
  "400",
  "--rate",
  "84",
  "--num-instances",
  "2",
  "--max-num-seqs",
  "32",
  "--slo-ttft",
  "critical=1s,standard=2s,sheddable=5s",
  "--flow-control",
  "--saturation-detector",
  "utilization",
  "--queue-depth-threshold",
  "2",
  "--usage-limit-threshold",
  "0.5",
  "--per-band-capacity",
  "64",
];

let browser: BrowserContext;
let close: () => Promise<void>;
let tmp: string;
before(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "blis-gw-report-"));
  ({ browser, close } = await launch());
});
after(async () => {
  await close?.();
  fs.rmSync(tmp, { recursive: true, force: true });
});

test("run report of a flow-controlled run: queue depth per band, goodput per class, per tenant", async () => {
  const html = path.join(tmp, "gw.html");
  const r = spawnSync(process.execPath, [BIN, ...ARGS, "--report", html], {
    cwd: ROOT,
    encoding: "utf8",
    timeout: 180_000,
  });
  assert.equal(r.status, 0, r.stderr);
  const data = JSON.parse(fs.readFileSync(path.join(tmp, "gw.json"), "utf8")) as {
    timeSeries: { gateway: { priorities: number[]; depth: number[][] } };
  };
  assert.deepEqual(data.timeSeries.gateway.priorities, [4, 3, -2], "bands in order of first appearance");
  assert.ok(Math.max(...data.timeSeries.gateway.depth[2]!) > 0, "the sheddable band queues under overload");
  const text = fs.readFileSync(html, "utf8");
  assert.match(text, /Goodput per SLO class/);
  assert.match(text, /Per tenant \(Jain/);
  const page = await checkPage(browser, html, path.join(ROOT, "test-output/screenshots/run-report-gateway.png"));
  assert.deepEqual(page.pageErrors, []);
  assert.deepEqual(page.failed, []);
  const depth = page.charts.find((c) => c.id === "chart-gateway-depth");
  assert.ok(depth !== undefined && depth.points > 0 && depth.painted > 500, "the depth chart is drawn");
  const tenants = page.charts.find((c) => c.id === "chart-gateway-tenants");
  assert.ok(
    tenants !== undefined && tenants.points >= 2 && tenants.painted > 100,
    "the per-tenant throughput chart is drawn",
  );
  const again = path.join(tmp, "again.html");
  const rebuilt = spawnSync(process.execPath, [BIN, "report", path.join(tmp, "gw.json"), "--out", again], {
    cwd: ROOT,
    encoding: "utf8",
  });
  assert.equal(rebuilt.status, 0, rebuilt.stderr);
  assert.equal(fs.readFileSync(again, "utf8"), text);
});
