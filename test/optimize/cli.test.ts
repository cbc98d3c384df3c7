import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { cli, clusterBlock, splitArgs } from "../helpers/cli.js";
import { loadPolicyBundle } from "../../src/config/policyBundle.js";

const MODEL = "meta-llama/llama-3.1-8b-instruct";

function space(extra = ""): string {
  return `name: tiny
seed: 3
seeds: [42, 43]
budget: 6
initial: 3
base:
  flags:
    model: ${MODEL}
    num-instances: 2
    routing-policy: weighted
    log: error
  workload_spec:
    version: "2"
    seed: 42
    category: language
    aggregate_rate: 1500
    num_requests: 160
    clients:
      - id: crit
        slo_class: critical
        rate_fraction: 0.3
        arrival: {process: gamma, cv: 2.0}
        input_distribution: {type: gaussian, params: {mean: 256, std_dev: 64, min: 2, max: 1024}}
        output_distribution: {type: exponential, params: {mean: 32}}
      - id: shed
        slo_class: sheddable
        rate_fraction: 0.7
        arrival: {process: gamma, cv: 2.0}
        input_distribution: {type: gaussian, params: {mean: 256, std_dev: 64, min: 2, max: 1024}}
        output_distribution: {type: exponential, params: {mean: 32}}
baseline:
  flags:
    routing-scorers: "prefix-affinity:3,queue-depth:2,kv-utilization:2"
    scheduler: fcfs
    priority-policy: constant
parameters:
  - name: priority
    type: categorical
    target: variant
    values:
      - {name: fcfs, flags: {priority-policy: constant, scheduler: fcfs}}
      - {name: slo-class, flags: {priority-policy: slo-class, scheduler: priority-fcfs}}
  - name: age_weight
    type: continuous
    min: 1.0e-7
    max: 1.0e-3
    log: true
    target: {flag: slo-age-weight}
  - name: w_queue
    type: integer
    min: 1
    max: 5
    target: {scorer: queue-depth}
  - name: w_prefix
    type: continuous
    min: 0.1
    max: ${extra === "changed" ? 4 : 5}
    target: {scorer: prefix-affinity}
  - name: offload
    type: continuous
    min: 0.5
    max: 0.95
    target: {flag: kv-offload-threshold}
objective: {metric: ttft_p99, direction: minimize}
constraints:
  - {metric: throughput, min: 0.9 * baseline}
`.replace("budget: 6", extra === "bigger" ? "budget: 8" : "budget: 6");
}

test("blis optimize end to end: results, a reproducible best, resume, a larger budget, a changed space", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "blis-optimize-"));
  const file = path.join(dir, "space.yaml");
  const out = path.join(dir, "out");
  fs.writeFileSync(file, space());

  // 1. The search.
  const r1 = await cli(["optimize", file, "--out", out, "--jobs", "2"]);
  assert.equal(r1.code, 0, r1.stderr.join("\n"));
  for (const f of [
    "evaluations.jsonl",
    "evaluations.csv",
    "evaluations.json",
    "convergence.md",
    "best.yaml",
    "best-command.txt",
    "workload.yaml",
    "space.json",
  ]) {
    assert.ok(fs.existsSync(path.join(out, f)), `${f} written`);
  }
  assert.match(r1.stdout, /^=== blis optimize: tiny ===/);
  assert.match(r1.stdout, /evaluations: 6 of budget 6 \(3 Latin-hypercube design, 3 Bayesian; 2 per step\)/);
  assert.match(r1.stdout, /Convergence:\n\s+#\s+source\s+ttft_p99\s+feasible\s+best so far\n/);
  assert.match(r1.stdout, /Best: evaluation #\d \((design|bo)\)/);
  assert.match(
    r1.stdout,
    /\nCommand:\n {2}blis run --model meta-llama\/llama-3\.1-8b-instruct --workload-spec \S+workload\.yaml /,
  );
  assert.ok(
    r1.stderr.some((l) =>
      /^optimize: 14 simulations run, 0 evaluations reused, wall time \d+\.\d s; results in /.test(l),
    ),
    r1.stderr.join("\n"),
  );
  // Progress: one line per evaluation and one for the baseline, each with k/budget and an ETA;
  // the best shown never gets worse and ends at the reported best. Wall time is not on stdout.
  const progress = r1.stderr.filter((l) => /^optimize: \d+\/6 /.test(l));
  assert.equal(progress.length, 7, r1.stderr.join("\n"));
  assert.ok(progress.every((l) => / {2}ETA (\d+s|\d+m\d\ds|-)( |$)/.test(l)));
  assert.deepEqual(
    progress.filter((l) => !/^optimize: \d+\/6 baseline /.test(l)).map((l) => Number(/^optimize: (\d+)\//.exec(l)![1])),
    [1, 2, 3, 4, 5, 6],
  );
  const shown = progress.map((l) => / {2}best ([\d.]+) \(#(\d+)\)/.exec(l)).filter((m) => m !== null);
  assert.ok(shown.length >= 4, "the best is shown once the baseline is known");
  for (let i = 1; i < shown.length; i++)
    assert.ok(Number(shown[i]![1]) <= Number(shown[i - 1]![1]), progress.join("\n"));
  const lastBest = shown[shown.length - 1]!;
  assert.match(r1.stdout, new RegExp(`Best: evaluation #${lastBest[2]} `));
  assert.doesNotMatch(r1.stdout, /wall time/);

  const json = JSON.parse(fs.readFileSync(path.join(out, "evaluations.json"), "utf8")) as {
    baseline: { objective: { mean: number }; metrics: Record<string, number> };
    evaluations: {
      evaluation: number;
      source: string;
      feasible: boolean;
      params: Record<string, unknown>;
      objective: { mean: number; per_seed: Record<string, number> };
      constraints: { metric: string; value: number; min: number; ok: boolean }[];
    }[];
    best: { evaluation: number; objective: number; command: string; bundle_command: string };
  };
  assert.equal(json.evaluations.length, 6);
  assert.deepEqual(
    json.evaluations.map((e) => e.source),
    ["design", "design", "design", "bo", "bo", "bo"],
  );
  for (const e of json.evaluations) {
    assert.deepEqual(Object.keys(e.objective.per_seed), ["42", "43"]);
    assert.ok(Math.abs(e.objective.mean - (e.objective.per_seed["42"]! + e.objective.per_seed["43"]!) / 2) < 1e-9);
    assert.equal(e.constraints[0]!.metric, "throughput");
    assert.ok(Math.abs(e.constraints[0]!.min - 0.9 * json.baseline.metrics["throughput"]!) < 1e-9);
    assert.equal(e.feasible, e.constraints[0]!.ok);
  }
  const feasible = json.evaluations.filter((e) => e.feasible);
  assert.ok(feasible.length > 0);
  assert.equal(json.best.objective, Math.min(...feasible.map((e) => e.objective.mean)));
  const csv = fs.readFileSync(path.join(out, "evaluations.csv"), "utf8").trim().split("\n");
  assert.equal(csv.length, 8, "header, baseline, 6 evaluations");
  assert.match(
    csv[0]!,
    /^evaluation,source,feasible,priority,age_weight,w_queue,w_prefix,offload,ttft_p99_mean,ttft_p99_seed_42,ttft_p99_seed_43,constraint_1_throughput,/,
  );
  const conv = fs.readFileSync(path.join(out, "convergence.md"), "utf8");
  const rows = conv.split("\n").filter((l) => /^\|\s+\d+ \|/.test(l));
  assert.equal(rows.length, 6);
  const bestCol = rows
    .map((l) => l.split("|")[5]!.trim())
    .filter((v) => v !== "-")
    .map(Number);
  for (let i = 1; i < bestCol.length; i++) assert.ok(bestCol[i]! <= bestCol[i - 1]!, "best so far never gets worse");

  // 2. The best command and the bundle reproduce the best evaluation's seed-42 value.
  const bestEval = json.evaluations.find((e) => e.evaluation === json.best.evaluation)!;
  const command = fs.readFileSync(path.join(out, "best-command.txt"), "utf8").trim();
  assert.equal(command, json.best.command);
  const bundle = loadPolicyBundle(path.join(out, "best.yaml"));
  assert.equal(bundle.priority?.policy, bestEval.params["priority"] === "fcfs" ? "constant" : "slo-class");
  assert.equal(bundle.routing?.scorers?.[0]?.name, "queue-depth");
  assert.equal(bundle.routing?.scorers?.[0]?.weight, bestEval.params["w_queue"]);
  assert.match(
    fs.readFileSync(path.join(out, "best.yaml"), "utf8"),
    /# Not expressible in a bundle \(pass as flags\): offload = --kv-offload-threshold /,
  );
  for (const cmd of [command, json.best.bundle_command]) {
    const run = await cli([...splitArgs(cmd).slice(1), "--seed", "42"]);
    assert.equal(run.code, 0, run.stderr.join("\n"));
    assert.equal(clusterBlock(run.stdout)["ttft_p99_ms"], bestEval.objective.per_seed["42"], cmd);
  }

  // The same search from scratch prints the same stdout, byte for byte.
  const again = await cli(["optimize", file, "--out", out, "--jobs", "2", "--restart", "--no-progress"]);
  assert.equal(again.code, 0, again.stderr.join("\n"));
  assert.equal(again.stdout, r1.stdout);

  // 3. Rerun: everything is reused, nothing is simulated, the results are the same.
  const log = fs.readFileSync(path.join(out, "evaluations.jsonl"), "utf8");
  const r2 = await cli(["optimize", file, "--out", out, "--jobs", "2"]);
  assert.equal(r2.code, 0);
  assert.ok(
    r2.stderr.some((l) => /^optimize: 0 simulations run, 7 evaluations reused/.test(l)),
    r2.stderr.join("\n"),
  );
  assert.equal(fs.readFileSync(path.join(out, "evaluations.jsonl"), "utf8"), log);
  const noCounts = (s: string): string => s.replace(/simulations run: .*\n/, "");
  assert.equal(noCounts(r2.stdout), noCounts(r1.stdout));

  // 4. A larger budget continues the same search (the initial design is fixed).
  fs.writeFileSync(file, space("bigger"));
  const r3 = await cli(["optimize", file, "--out", out, "--jobs", "2", "--no-progress"]);
  assert.equal(r3.code, 0, r3.stderr.join("\n"));
  assert.ok(
    r3.stderr.some((l) => /^optimize: 4 simulations run, 7 evaluations reused/.test(l)),
    r3.stderr.join("\n"),
  );
  assert.match(r3.stdout, /evaluations: 8 of budget 8/);

  // 5. A changed space is refused (exit 1, one line) unless --restart.
  fs.writeFileSync(file, space("changed"));
  const r4 = await cli(["optimize", file, "--out", out, "--jobs", "2"]);
  assert.equal(r4.code, 1);
  assert.equal(r4.stderr.length, 1);
  assert.match(
    r4.stderr[0]!,
    /^error: .*space\.json: the search space changed since the evaluations in this directory .*rerun with --restart/,
  );
  const r5 = await cli(["optimize", file, "--out", out, "--jobs", "2", "--restart", "--no-progress"]);
  assert.equal(r5.code, 0, r5.stderr.join("\n"));
  assert.ok(r5.stderr.some((l) => /--restart: removed the previous evaluations/.test(l)));
  assert.ok(r5.stderr.some((l) => /^optimize: 14 simulations run, 0 evaluations reused/.test(l)));

  // 6. An invalid space: exit 1, one line with its position.
  fs.writeFileSync(file, space().replace("type: integer", "type: whole"));
  const r6 = await cli(["optimize", file, "--out", out]);
  assert.equal(r6.code, 1);
  assert.match(
    r6.stderr.join("\n"),
    /^error: .*space\.yaml:\d+:11: parameters\[2\] "w_queue" type: expected continuous, integer or categorical, got "whole"$/,
  );
  fs.rmSync(dir, { recursive: true, force: true });
});

test("blis optimize evaluates no point twice and stops early when the space is exhausted", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "blis-optimize-grid-"));
  const file = path.join(dir, "space.yaml");
  const out = path.join(dir, "out");
  // 2 × 3 = 6 points and a budget of 10.
  const params = `parameters:
  - name: priority
    type: categorical
    target: variant
    values:
      - {name: fcfs, flags: {priority-policy: constant, scheduler: fcfs}}
      - {name: slo-class, flags: {priority-policy: slo-class, scheduler: priority-fcfs}}
  - name: w_queue
    type: integer
    min: 1
    max: 3
    target: {scorer: queue-depth}
`;
  // Search seed 2: its Latin hypercube of 5 rounds to 3 distinct points of this space.
  const text = space().replace("seed: 3\n", "seed: 2\n").replace("budget: 6\ninitial: 3", "budget: 10\ninitial: 5");
  fs.writeFileSync(file, text.slice(0, text.indexOf("parameters:")) + params + text.slice(text.indexOf("objective:")));
  const r1 = await cli(["optimize", file, "--out", out, "--jobs", "2"]);
  assert.equal(r1.code, 0, r1.stderr.join("\n"));
  const json = JSON.parse(fs.readFileSync(path.join(out, "evaluations.json"), "utf8")) as {
    evaluations: { source: string; params: Record<string, unknown> }[];
  };
  const points = json.evaluations.map((e) => JSON.stringify(e.params));
  assert.equal(points.length, 6, points.join(" "));
  assert.equal(new Set(points).size, 6, "no point twice");
  assert.deepEqual(
    json.evaluations.slice(0, 5).map((e) => e.source),
    ["design", "design", "design", "design", "design"],
    "duplicates in the design are replaced by other points",
  );
  assert.ok(
    r1.stderr.includes(
      "note: the search space has 6 points and every one has been evaluated; stopping after 6 of budget 10 evaluations",
    ),
    r1.stderr.join("\n"),
  );
  assert.match(
    r1.stdout,
    /evaluations: 6 of budget 10 .*\nstopped early: the search space has 6 points and every one has been evaluated\n/,
  );
  // Resumed: the same points are found in the log, nothing runs, the same report.
  const r2 = await cli(["optimize", file, "--out", out, "--jobs", "2", "--no-progress"]);
  assert.equal(r2.code, 0, r2.stderr.join("\n"));
  assert.ok(
    r2.stderr.some((l) => /^optimize: 0 simulations run, 7 evaluations reused/.test(l)),
    r2.stderr.join("\n"),
  );
  const noCounts = (s: string): string => s.replace(/simulations run: .*\n/, "");
  assert.equal(noCounts(r2.stdout), noCounts(r1.stdout));
  fs.rmSync(dir, { recursive: true, force: true });
});

test("blis optimize refuses a budget above the maximum before running anything (exit 1, FILE:LINE)", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "blis-optimize-budget-"));
  const file = path.join(dir, "space.yaml");
  const out = path.join(dir, "out");
  fs.writeFileSync(file, space().replace("budget: 6\ninitial: 3", "budget: 2147483648"));
  const started = Date.now();
  const r = await cli(["optimize", file, "--out", out, "--jobs", "1"]);
  assert.equal(r.code, 1, r.stderr.join("\n"));
  assert.equal(r.stderr.length, 1, r.stderr.join("\n"));
  assert.match(r.stderr[0]!, /^error: .*space\.yaml:4:9: budget: expected at most 1000 evaluations, got 2147483648$/);
  assert.equal(fs.existsSync(out), false, "nothing written");
  assert.equal(r.stdout, "");
  // The maximum itself is accepted by the parser (checked without running: an unknown model fails later,
  // in the check of the base options before the first run).
  fs.writeFileSync(
    file,
    space().replace("budget: 6\ninitial: 3", "budget: 1000\ninitial: 3").replace(MODEL, "no/such-model"),
  );
  const ok = await cli(["optimize", file, "--out", out, "--jobs", "1"]);
  assert.equal(ok.code, 1);
  assert.equal(ok.stderr.length, 1, ok.stderr.join("\n"));
  assert.match(ok.stderr[0]!, /space\.yaml: base: unknown model no\/such-model/);
  assert.ok(Date.now() - started < 60_000);
  fs.rmSync(dir, { recursive: true, force: true });
});
