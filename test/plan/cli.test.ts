// `blis plan` from the command line: the answer and its files, re-running the winner with
// `blis run`, and bad input.

import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseAllDocuments } from "yaml";
import { cli, clusterBlock } from "../helpers/cli.js";

const MODEL = "meta-llama/llama-3.1-8b-instruct";
const WORKLOAD = [
  "--prompt-tokens",
  "512",
  "--output-tokens",
  "128",
  "--output-tokens-stdev",
  "16",
  "--num-requests",
  "800",
];
const tmp = (): string => fs.mkdtempSync(path.join(os.tmpdir(), "blis-plan-"));

function planArgs(out: string, extra: string[] = []): string[] {
  return [
    "plan",
    "--model",
    MODEL,
    "--rate",
    "100",
    "--slo",
    "ttft_p99_ms=150,itl_p99_ms=20",
    "--gpus",
    "H100,A100-80",
    "--tp",
    "1,2",
    "--pd",
    "none,1:1",
    "--seeds",
    "2",
    "--max-replicas",
    "4",
    "--jobs",
    "2",
    "--out",
    out,
    "--log",
    "error",
    ...WORKLOAD,
    ...extra,
  ];
}

interface Best {
  gpu: string;
  tp: number;
  replicas: number;
  pd: string;
  cost_per_hour: number;
  slos: { key: string; limit: number; value: number; margin: number }[];
  run_args: string[];
}

test("plan: ranked table, plan.json, deploy files; the winner re-run with blis run meets the SLOs in every seed", async () => {
  const out = tmp();
  const r = await cli(planArgs(out));
  assert.equal(r.code, 0, r.stderr.join("\n"));
  assert.match(r.stdout, /example list prices, 2026-11-01/);
  assert.match(r.stdout, /^plan: best .* at USD [\d.]+\/h \(example list prices, 2026-11-01\); \d+ simulations/m);
  const j = JSON.parse(fs.readFileSync(path.join(out, "plan.json"), "utf8")) as {
    best: Best;
    candidates: { status: string }[];
  };
  for (const k of ["gpu", "tp", "replicas", "pd", "cost_per_hour", "slos"]) assert.ok(k in j.best, k);
  assert.equal(j.candidates.length, 8);
  for (const seed of [1, 2]) {
    const run = await cli(["run", ...j.best.run_args, "--seed", String(seed)]);
    assert.equal(run.code, 0, run.stderr.join("\n"));
    const c = clusterBlock(run.stdout);
    for (const s of j.best.slos) {
      const v = Number(c[s.key]);
      assert.ok(v <= s.limit, `seed ${seed}: ${s.key} ${v} > ${s.limit}`);
      assert.ok(v <= s.value + 1e-3, `seed ${seed}: ${s.key} ${v} above the plan's judged worst ${s.value}`);
    }
  }
  const docs = parseAllDocuments(fs.readFileSync(path.join(out, "deploy", "kubernetes.yaml"), "utf8"));
  const list = Array.isArray(docs) ? docs : [docs];
  assert.ok(list.length >= 1 && list.every((d) => d.errors.length === 0));
  const replicas = list.reduce((n, d) => n + Number((d.toJS() as { spec: { replicas: number } }).spec.replicas), 0);
  assert.equal(replicas, j.best.replicas);
  assert.match(
    fs.readFileSync(path.join(out, "deploy", "vllm-serve.sh"), "utf8"),
    new RegExp(`--tensor-parallel-size ${j.best.tp}`),
  );
  assert.match(fs.readFileSync(path.join(out, "report.html"), "utf8"), /Pareto frontier/);

  // A rerun reuses every evaluation and prints the same bytes.
  const again = await cli(planArgs(out));
  assert.equal(again.stdout, r.stdout);
  assert.ok(
    again.stderr.some((l) => /^plan: 0 simulations run/.test(l)),
    again.stderr.join("\n"),
  );
});

async function badInput(args: string[], pattern: RegExp): Promise<void> {
  const out = path.join(tmp(), "out");
  const r = await cli(args.map((a) => (a === "OUT" ? out : a)));
  assert.equal(r.code, 1, `${args.join(" ")}: ${r.stderr.join("\n")}`);
  const errors = r.stderr.filter((l) => l.startsWith("error:"));
  assert.equal(errors.length, 1, r.stderr.join("\n"));
  assert.match(errors[0]!, pattern);
  assert.equal(fs.existsSync(out), false, "nothing written for bad input");
}

const base = ["plan", "--model", MODEL, "--rate", "10", "--out", "OUT", "--log", "error", ...WORKLOAD];

test("plan: an SLO no shape can meet is refused before any simulation", async () => {
  await badInput(
    [...base, "--slo", "itl_p99_ms=0.5", "--gpus", "H100", "--tp", "1"],
    /--slo itl_p99_ms=0.5 cannot be met: even the fastest candidate/,
  );
});

test("plan: a model that fits no GPU is refused", async () => {
  await badInput(
    [
      "plan",
      "--model",
      "meta-llama/llama-3.1-70b-instruct",
      "--rate",
      "5",
      "--slo",
      "ttft_p99_ms=500",
      "--gpus",
      "L40S",
      "--tp",
      "1",
      "--out",
      "OUT",
    ],
    /fits no GPU in the candidate space/,
  );
});

test("plan: an empty candidate space is refused", async () => {
  await badInput([...base, "--slo", "ttft_p99_ms=500", "--gpus", ","], /--gpus: the candidate space is empty/);
});

test("plan: a GPU without a price is refused, naming the table", async () => {
  const dir = tmp();
  const prices = path.join(dir, "prices.yaml");
  fs.writeFileSync(prices, 'name: my prices\ndate: "2026-01-02"\ncurrency: EUR\nper_gpu_hour:\n  A100-80: 1.5\n');
  await badInput(
    [...base, "--slo", "ttft_p99_ms=500", "--gpus", "H100", "--gpu-prices", prices],
    /no price for GPU H100 in .*prices\.yaml \(my prices, 2026-01-02\)/,
  );
});

test("plan: bad --slo, --pd and --tp values are one line each", async () => {
  await badInput([...base, "--slo", "ttft_p42_ms=5"], /--slo: unknown key "ttft_p42_ms"/);
  await badInput([...base, "--slo", "ttft_p99_ms=300", "--pd", "0:2"], /--pd: "0:2"/);
  await badInput([...base, "--slo", "ttft_p99_ms=300", "--tp", "1,x"], /--tp: "x" is not a positive integer/);
});

test("plan: nothing feasible names the constraint that bound it; GPUs without latency data are skipped with the reason", async () => {
  const out = tmp();
  const prices = path.join(out, "prices.yaml");
  fs.writeFileSync(
    prices,
    'name: test prices\ndate: "2026-01-02"\ncurrency: USD\nper_gpu_hour:\n  H100: 3\n  X1000: 9\n',
  );
  const r = await cli([
    "plan",
    "--model",
    MODEL,
    "--rate",
    "100",
    "--slo",
    "ttft_p99_ms=150,itl_p99_ms=9",
    "--gpus",
    "H100,X1000",
    "--tp",
    "1",
    "--gpu-prices",
    prices,
    "--seeds",
    "1",
    "--max-replicas",
    "2",
    "--jobs",
    "2",
    "--out",
    out,
    "--log",
    "error",
    ...WORKLOAD,
  ]);
  assert.equal(r.code, 1, r.stderr.join("\n"));
  const err = r.stderr.filter((l) => l.startsWith("error:"));
  assert.equal(err.length, 1);
  assert.match(err[0]!, /nothing in the candidate space meets the SLOs: itl_p99_ms bound 1 of 1 shapes/);
  const j = JSON.parse(fs.readFileSync(path.join(out, "plan.json"), "utf8")) as {
    best: null;
    candidates: { gpu: string; status: string; reason: string }[];
  };
  assert.equal(j.best, null);
  const x = j.candidates.find((c) => c.gpu === "X1000")!;
  assert.equal(x.status, "skipped");
  assert.match(x.reason, /^no-latency-data: GPU "X1000" (not found in hardware config|has no kernel tables)/);
});
