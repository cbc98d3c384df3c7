// `blis plan --fleet` (the highest rate a fleet sustains) and `--rate-schedule` (copies per interval).

import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { cli } from "../helpers/cli.js";

const MODEL = "meta-llama/llama-3.1-8b-instruct";
const WORKLOAD = ["--prompt-tokens", "512", "--output-tokens", "128", "--output-tokens-stdev", "16", "--log", "error"];
const tmp = (): string => fs.mkdtempSync(path.join(os.tmpdir(), "blis-plan-modes-"));

test("--fleet: the sustained rate meets the SLOs, a rate just above does not", async () => {
  const out = tmp();
  const r = await cli([
    "plan",
    "--model",
    MODEL,
    "--fleet",
    "H100:tp1:1",
    "--rate",
    "20",
    "--slo",
    "ttft_p99_ms=200,itl_p99_ms=20",
    "--seeds",
    "2",
    "--jobs",
    "2",
    "--num-requests",
    "800",
    "--out",
    out,
    ...WORKLOAD,
  ]);
  assert.equal(r.code, 0, r.stderr.join("\n"));
  const j = JSON.parse(fs.readFileSync(path.join(out, "plan.json"), "utf8")) as {
    sustained: number;
    failed: number;
    probes: { rate: number; feasible: boolean }[];
    cost_per_hour: number;
    price_table: { label: string };
  };
  assert.ok(j.sustained > 0 && j.failed > j.sustained && (j.failed - j.sustained) / j.failed <= 0.02);
  const sorted = [...j.probes].sort((a, b) => a.rate - b.rate);
  const firstMiss = sorted.findIndex((p) => !p.feasible);
  assert.ok(
    sorted.slice(firstMiss).every((p) => !p.feasible),
    "feasibility falls once with the rate",
  );
  assert.equal(j.cost_per_hour, 3);
  assert.match(r.stdout, new RegExp(`^plan: the fleet sustains ${j.sustained} req/s`, "m"));
  assert.match(r.stdout, /USD 3\.00\/h from example list prices, 2026-11-01/);
});

test("--rate-schedule: copies per interval follow the rate, GPU-hours no more than a fleet fixed at the peak", async () => {
  const out = tmp();
  const sched = path.join(out, "day.csv");
  fs.writeFileSync(sched, "00:00,15\n08:00,90\n20:00,40\n");
  const r = await cli([
    "plan",
    "--model",
    MODEL,
    "--rate-schedule",
    sched,
    "--slo",
    "ttft_p99_ms=200,itl_p99_ms=20",
    "--gpus",
    "H100",
    "--tp",
    "1",
    "--seeds",
    "2",
    "--jobs",
    "2",
    "--num-requests",
    "1200",
    "--out",
    out,
    ...WORKLOAD,
  ]);
  assert.equal(r.code, 0, r.stderr.join("\n"));
  const j = JSON.parse(fs.readFileSync(path.join(out, "plan.json"), "utf8")) as {
    best: { replicas: number };
    schedule: {
      intervals: { rate: number; copies: number; hours: number; gpus: number }[];
      gpu_hours: number;
      fixed_peak_gpu_hours: number;
    };
  };
  const iv = j.schedule.intervals;
  assert.deepEqual(
    iv.map((x) => x.hours),
    [8, 12, 4],
  );
  const peak = iv.find((x) => x.rate === 90)!;
  assert.equal(peak.copies, j.best.replicas);
  const byRate = [...iv].sort((a, b) => a.rate - b.rate);
  for (let i = 1; i < byRate.length; i++) assert.ok(byRate[i]!.copies >= byRate[i - 1]!.copies);
  assert.equal(
    j.schedule.gpu_hours,
    iv.reduce((a, x) => a + x.gpus * x.hours, 0),
  );
  assert.ok(j.schedule.gpu_hours <= j.schedule.fixed_peak_gpu_hours);
  assert.match(r.stdout, /saving [\d.]+%/);
});
