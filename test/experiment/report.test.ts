import { test } from "node:test";
import assert from "node:assert/strict";
import {
  buildReport,
  planFromCells,
  renderCsv,
  renderMarkdown,
  renderText,
  verdict,
} from "../../src/experiment/index.js";
import { conservationRow, determinismRow, firstDifference, indexRecords } from "../../src/experiment/report.js";
import type { RunRecord } from "../../src/experiment/store.js";
import type { SimulationMetrics } from "../../src/metrics/collect.js";
import type { MetricsBlock } from "../../src/metrics/metricsBlock.js";
import { MODEL } from "./helpers.js";

function block(
  id: string,
  c: { completed: number; queued?: number; running?: number; dropped?: number; injected?: number; ttftP99?: number },
): MetricsBlock {
  const q = c.queued ?? 0;
  const r = c.running ?? 0;
  const d = c.dropped ?? 0;
  return {
    instance_id: id,
    completed_requests: c.completed,
    still_queued: q,
    still_running: r,
    injected_requests: c.injected ?? c.completed + q + r + d,
    total_input_tokens: 0,
    total_output_tokens: 0,
    vllm_estimated_duration_s: 1,
    responses_per_sec: c.completed,
    tokens_per_sec: 0,
    e2e_mean_ms: 0,
    e2e_p90_ms: 0,
    e2e_p95_ms: 0,
    e2e_p99_ms: 0,
    ttft_mean_ms: 0,
    ttft_p90_ms: 0,
    ttft_p95_ms: 0,
    ttft_p99_ms: c.ttftP99 ?? 0,
    itl_mean_ms: 0,
    itl_p90_ms: 0,
    itl_p95_ms: 0,
    itl_p99_ms: 0,
    scheduling_delay_p99_ms: 0,
    preemption_count: 0,
    dropped_unservable: d,
  };
}

function metrics(
  instances: MetricsBlock[],
  cluster: MetricsBlock,
  extra: Partial<SimulationMetrics> = {},
): SimulationMetrics {
  return {
    numInstances: instances.length,
    instances,
    cluster,
    anomalies: { priorityInversions: 0, holBlocking: 0, rejected: 0, droppedUnservable: cluster.dropped_unservable },
    kv: { preemptionRate: 0, cacheHitRate: 0, kvThrashingRate: 0, tiered: null },
    perSlo: [],
    tenantFairness: 1,
    trace: null,
    fitnessInputs: {
      ttft: { count: 0, min: 0, max: 0, mean: 0, p50: 0, p95: 0, p99: 0 },
      e2e: { count: 0, min: 0, max: 0, mean: 0, p50: 0, p95: 0, p99: 0 },
      completed: cluster.completed_requests,
      outputTokens: 0,
      simEnded: 1e6,
    },
    generated: cluster.injected_requests,
    routed: cluster.injected_requests,
    perInstanceRouted: instances.map((b) => b.injected_requests),
    allArrived: true,
    ...extra,
  } as SimulationMetrics;
}

function rec(config: string, seed: number, m: SimulationMetrics | null, extra: Partial<RunRecord> = {}): RunRecord {
  return {
    v: 1,
    config,
    config_index: 0,
    seed,
    rep: 0,
    status: "ok",
    error: "",
    timeout_s: 300,
    wall_s: 0.1,
    stdout: "out\n",
    stderr: [],
    metrics: m,
    ...extra,
  };
}

test("verdict labels", () => {
  assert.equal(verdict([]), "n/a");
  assert.equal(
    verdict([
      [100, 102],
      [50, 51],
      [10, 10.2],
    ]),
    "equivalent",
  );
  assert.equal(
    verdict([
      [130, 100],
      [125, 100],
      [150, 100],
    ]),
    "significant",
  );
  assert.equal(
    verdict([
      [70, 100],
      [60, 100],
      [75, 100],
    ]),
    "significant",
  );
  assert.equal(
    verdict([
      [130, 100],
      [105, 100],
      [150, 100],
    ]),
    "inconclusive",
  );
  assert.equal(
    verdict([
      [115, 100],
      [112, 100],
      [118, 100],
    ]),
    "weak",
  );
  assert.equal(
    verdict([
      [130, 100],
      [85, 100],
      [150, 100],
    ]),
    "mixed",
  );
});

test("first differing line", () => {
  assert.equal(firstDifference("a\nb\n", "a\nb\n"), null);
  assert.equal(firstDifference("a\nb\nc\n", "a\nB\nc\n"), 'line 2: "b" vs "B"');
  assert.equal(firstDifference("a\n", "a\nmore\n"), 'line 2: "" vs "more"');
  const d = determinismRow(
    "c",
    1,
    rec("c", 1, null, { stdout: "x\ny\n" }),
    rec("c", 1, null, { rep: 1, stdout: "x\nz\n" }),
  );
  assert.deepEqual([d.result, d.detail], ["FAIL", 'line 2: "y" vs "z"']);
  const t = determinismRow("c", 1, rec("c", 1, null), rec("c", 1, null, { rep: 1, status: "timeout" }));
  assert.equal(t.result, "N/A");
});

test("conservation: each equation is checked and a failure is reported", () => {
  const good = metrics(
    [block("instance_0", { completed: 5 }), block("instance_1", { completed: 4, queued: 1 })],
    block("cluster", { completed: 9, queued: 1 }),
  );
  const row = conservationRow("c", 1, rec("c", 1, good));
  assert.deepEqual([row.blocks, row.instance_sum, row.pipeline, row.result], ["PASS", "PASS", "PASS", "PASS"]);

  const leak = metrics([block("instance_0", { completed: 5, injected: 6 })], block("cluster", { completed: 5 }));
  const r1 = conservationRow("c", 1, rec("c", 1, leak));
  assert.equal(r1.result, "FAIL");
  assert.match(r1.detail, /instance_0: injected 6 != completed\+queued\+running\+dropped 5/);

  const sum = metrics(
    [block("instance_0", { completed: 5 }), block("instance_1", { completed: 5 })],
    block("cluster", { completed: 9 }),
  );
  const r2 = conservationRow("c", 1, rec("c", 1, sum));
  assert.equal(r2.instance_sum, "FAIL");

  const pipe = metrics([block("instance_0", { completed: 5 })], block("cluster", { completed: 5 }), { generated: 7 });
  assert.equal(conservationRow("c", 1, rec("c", 1, pipe)).pipeline, "FAIL");
  const late = metrics([block("instance_0", { completed: 5 })], block("cluster", { completed: 5 }), {
    generated: 7,
    allArrived: false,
  });
  const r3 = conservationRow("c", 1, rec("c", 1, late));
  assert.deepEqual([r3.pipeline, r3.result], ["N/A", "PASS"]);
  assert.equal(conservationRow("c", 1, rec("c", 1, null, { status: "timeout" })).result, "N/A");
});

test("tables depend only on the set of results, not on their order; check failures set exit status 1", () => {
  const plan = planFromCells(
    [1, 2, 4].map((n) => ({ label: `n=${n}`, input: { model: MODEL, numInstances: n }, coords: { n } })),
    {
      seeds: [1, 2],
      metrics: ["ttft_p99", "completed"],
      baseline: "n=1",
      checks: { monotonic: [{ axis: "n", metric: "ttft_p99", direction: "decreasing", where: {} }] },
    },
  );
  const p99 = { "n=1": [30, 32], "n=2": [20, 21], "n=4": [10, 25] } as Record<string, number[]>;
  const recs: RunRecord[] = [];
  for (const c of ["n=1", "n=2", "n=4"]) {
    [1, 2].forEach((s, i) =>
      recs.push(
        rec(
          c,
          s,
          metrics([block("instance_0", { completed: 3 })], block("cluster", { completed: 3, ttftP99: p99[c]![i]! })),
        ),
      ),
    );
  }
  const a = buildReport(plan, indexRecords(recs));
  const b = buildReport(plan, indexRecords([...recs].reverse()));
  assert.equal(JSON.stringify(a), JSON.stringify(b));
  assert.equal(renderText(a), renderText(b));
  assert.equal(renderMarkdown(a), renderMarkdown(b));
  assert.equal(renderCsv(a), renderCsv(b));
  // Seed 2 is not monotone (21 → 25): the per-seed series fails, the mean series passes.
  const mono = a.monotonic[0]!;
  assert.equal(mono.result, "FAIL");
  assert.deepEqual(
    mono.rows.map((r) => [r.series, r.result]),
    [
      ["mean", "PASS"],
      ["seed=1", "PASS"],
      ["seed=2", "FAIL"],
    ],
  );
  assert.equal(mono.rows[2]!.first_inversion, "n 2→4: 21 → 25");
  assert.equal(a.exit_status, 1);
  const ratio = a.ratios.find((r) => r.numerator === "n=4" && r.metric === "ttft_p99")!;
  assert.deepEqual(
    ratio.per_seed.map((p) => p.value),
    [10 / 30, 25 / 32],
  );
  assert.equal(ratio.below_1, "2/2");
  assert.equal(ratio.mean, (10 / 30 + 25 / 32) / 2);
  // A missing run is reported as such and excluded.
  const partial = buildReport(plan, indexRecords(recs.slice(1)));
  assert.equal(partial.per_seed[0]!.status, "missing");
  assert.equal(partial.summary.find((s) => s.config === "n=1" && s.metric === "completed")!.n_valid, 1);
});

test("conservation: requests still in admission, routing or arrival delays at the horizon count as in transit", async () => {
  const { simulate } = await import("../../src/sim/simulate.js");
  const { silentLogger } = await import("../../src/util/log.js");
  // 600 s of arrivals at 10 req/s are cut at 300 s: the last arrival before the horizon is still on
  // its way to the wait queue.
  const res = await simulate(
    { model: "meta-llama/llama-3.1-8b-instruct", numRequests: 6000, rate: 10, horizon: 300e6, seed: 42 },
    { logger: silentLogger },
  );
  const m = res.metrics;
  assert.ok(m.allArrived);
  assert.ok((m.inTransit ?? 0) > 0, "this configuration leaves a request between arrival and the wait queue");
  assert.equal(m.cluster.injected_requests + m.inTransit!, m.generated);
  const row = conservationRow("c", 42, rec("c", 42, m));
  assert.deepEqual([row.pipeline, row.result], ["PASS", "PASS"], row.detail);
  assert.equal(conservationRow("c", 42, rec("c", 42, { ...m, inTransit: 0 })).pipeline, "FAIL");
});
