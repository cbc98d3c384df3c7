// examples/experiments/autoscale-daily.yaml, reduced to a 400 s day at half the load and half the
// KV cache (the same fleet dynamics in about a second): the fleet grows after the rise, later than
// the rise by the scale-up window and the loading delay; it shrinks after the fall; it never goes
// below min_replicas; TTFT p99 spikes during the cold start; and it uses fewer GPU-hours than a
// fixed fleet of its peak size. Also the outputs that show it: the report's fleet series and
// charts, and the scaling events of the decision trace in time order.

import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parse, stringify } from "yaml";
import { cli } from "../helpers/cli.js";
import { checkRunReportData, type RunReportData } from "../../src/report/runData.js";
import { fleetLines } from "../../src/report/runFleet.js";
import { quantile, sortedOf } from "../../src/report/stats.js";

const EXAMPLES = path.resolve("examples/experiments");
const BUNDLE = path.join(EXAMPLES, "autoscale-daily.yaml");
const FIXED = path.join(EXAMPLES, "autoscale-daily-fixed.yaml");

const RISE_S = 100;
const FALL_S = 220;
// From the example bundle: min_replicas, the scale-up and scale-down windows, the loading delay.
const MIN_REPLICAS = 2;
const UP_WINDOW_S = 20;
const DOWN_WINDOW_S = 60;
const LOADING_MEAN_S = 30;

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "blis-daily-"));
process.on("exit", () => fs.rmSync(dir, { recursive: true, force: true }));

/** The example's workload with the reduced schedule: 10 req/s, 40 from 100 s, 10 from 220 s, none from 400 s. */
function reducedSpec(): string {
  const spec = parse(fs.readFileSync(path.join(EXAMPLES, "autoscale-daily-workload.yaml"), "utf8")) as {
    clients: { rate_schedule: unknown }[];
  };
  spec.clients[0]!.rate_schedule = [
    { at_s: 0, rate: 10 },
    { at_s: RISE_S, rate: 40 },
    { at_s: FALL_S, rate: 10 },
    { at_s: 400, rate: 0 },
  ];
  const f = path.join(dir, "workload.yaml");
  fs.writeFileSync(f, stringify(spec));
  return f;
}

const COMMON = ["--model", "meta-llama/llama-3.1-8b-instruct", "--total-kv-blocks", "600", "--max-model-len", "2048"];

async function run(name: string, args: string[]): Promise<{ stdout: string; data: RunReportData; html: string }> {
  const report = path.join(dir, `${name}.html`);
  const r = await cli([
    "run",
    ...COMMON,
    "--workload-spec",
    reducedSpec(),
    "--report",
    report,
    "--log",
    "error",
    ...args,
  ]);
  assert.equal(r.code, 0, r.stderr.join("\n"));
  const data = checkRunReportData(JSON.parse(fs.readFileSync(path.join(dir, `${name}.json`), "utf8")), name);
  return { stdout: r.stdout, data, html: fs.readFileSync(report, "utf8") };
}

/** TTFT p99 (µs) of the requests arriving in [fromS, toS) that got a first token. */
function ttftP99(d: RunReportData, fromS: number, toS: number): number {
  const v: number[] = [];
  const { arrivalUs, ttftUs } = d.requests;
  for (let i = 0; i < arrivalUs.length; i++) {
    if (arrivalUs[i]! >= fromS * 1e6 && arrivalUs[i]! < toS * 1e6 && ttftUs[i]! >= 0) v.push(ttftUs[i]!);
  }
  assert.ok(v.length > 100, `enough requests in [${fromS}, ${toS}) s`);
  return quantile(sortedOf(v), 0.99);
}

test("autoscale-daily (reduced): the fleet follows the load, cold starts cost TTFT, GPU-hours beat a fixed peak fleet", async () => {
  const auto = await run("auto", [
    "--num-instances",
    String(MIN_REPLICAS),
    "--policy-config",
    BUNDLE,
    "--trace-level",
    "decisions",
    "--summarize-trace",
  ]);
  const ts = auto.data.timeSeries!;
  const routable = fleetLines(ts.fleet!).routable;
  const at = (k: number): number => ts.timesUs[k]! / 1e6;

  // Never below min_replicas (the startup instances are warm, so from the first sample on).
  assert.ok(Math.min(...routable) >= MIN_REPLICAS, "routable instances never below min_replicas");

  const grow = routable.findIndex((n) => n > MIN_REPLICAS);
  assert.ok(grow >= 0, "the fleet grows");
  const growS = at(grow);
  assert.ok(
    growS >= RISE_S + UP_WINDOW_S + LOADING_MEAN_S,
    `first growth at ${growS} s comes after the window and the loading delay`,
  );
  assert.ok(growS < FALL_S, "and before the fall");

  const peak = Math.max(...routable);
  assert.equal(peak, auto.data.autoscaler!.peakRoutable);
  assert.ok(peak >= 4, `the peak fleet (${peak}) is at least twice min_replicas`);
  const peakAt = routable.indexOf(peak);
  const shrink = routable.findIndex((n, k) => k > peakAt && n < peak);
  assert.ok(shrink >= 0, "the fleet shrinks");
  assert.ok(
    at(shrink) >= FALL_S + DOWN_WINDOW_S,
    `it shrinks at ${at(shrink)} s, after the fall and the scale-down window`,
  );
  assert.ok(routable[routable.length - 1]! < peak, "and stays below the peak to the end");

  const steady = ttftP99(auto.data, 0, RISE_S);
  const coldStart = ttftP99(auto.data, RISE_S, growS);
  assert.ok(
    coldStart > 10 * steady,
    `TTFT p99 in the cold start (${coldStart} µs) spikes over the steady low load (${steady} µs)`,
  );
  const after = ttftP99(auto.data, at(peakAt) + 10, FALL_S);
  assert.ok(after < coldStart / 10, `TTFT p99 recovers once the new instances serve (${after} µs)`);

  const fixed = await run("fixed", ["--num-instances", String(peak), "--policy-config", FIXED]);
  const autoHours = auto.data.autoscaler!.instanceGpuHours;
  const fixedHours = fixed.data.autoscaler!.instanceGpuHours;
  assert.ok(autoHours < 0.8 * fixedHours, `autoscaled GPU-hours ${autoHours} < fixed peak fleet's ${fixedHours}`);
  assert.match(fixed.stdout, new RegExp(`Instance GPU-hours: ${fixedHours.toFixed(4)}\\n`));

  // The report draws the fleet over the load curve and the TTFT p99 by arrival time.
  assert.match(auto.html, /id="chart-fleet-size"/);
  assert.match(auto.html, /id="chart-fleet-ttft"/);
  assert.equal(ts.fleet!.nodesReady.length, ts.timesUs.length);
  assert.ok(Math.max(...ts.fleet!.nodesReady) >= peak, "nodes were provisioned for the new instances");

  // Scaling events on stdout, in time order, with instance and reason.
  const lines = auto.stdout.split("\n").filter((l) => /^ {2}t=\d+ [a-z-]+ \S+: /.test(l));
  const count = /Scaling Events: (\d+)/.exec(auto.stdout);
  assert.ok(count !== null && Number(count[1]) === lines.length && lines.length > 0);
  const times = lines.map((l) => Number(/t=(\d+)/.exec(l)![1]));
  assert.deepEqual(
    times,
    [...times].sort((a, b) => a - b),
    "scaling events are in time order",
  );
  assert.ok(lines.some((l) => / scale-up autoscale-\S+: required capacity/.test(l)));
  assert.ok(lines.some((l) => / scale-down \S+: spare capacity/.test(l)));
  assert.ok(lines.some((l) => / terminated \S+: drained/.test(l)));
});
