import { test } from "node:test";
import assert from "node:assert/strict";
import { extractMetric, metricProblem } from "../../src/experiment/metrics.js";
import { simulate } from "../../src/sim/simulate.js";
import { silentLogger } from "../../src/util/log.js";

test("sweep metrics of the gateway and goodput: names, and values from a run", async () => {
  assert.equal(metricProblem("goodput.critical.slo_attainment"), null);
  assert.equal(metricProblem("shed.sheddable"), null);
  assert.equal(metricProblem("gateway_expired"), null);
  assert.match(metricProblem("goodput.critical.bogus")!, /unknown goodput field "bogus"/);
  assert.match(metricProblem("goodput.critical")!, /goodput\.<class>\.<field>/);
  const r = await simulate(
    {
      model: "meta-llama/llama-3.1-8b-instruct",
      numRequests: 40,
      rate: 200,
      sloTtft: "default=50ms",
      admissionPolicy: "reject-all",
      seed: 1,
    },
    { logger: silentLogger },
  );
  const m = r.metrics;
  assert.equal(extractMetric("goodput.default.count", m, ""), 40);
  assert.equal(extractMetric("goodput.default.slo_attainment", m, ""), 0);
  assert.equal(extractMetric("slo_attainment", m, ""), 0);
  assert.equal(
    extractMetric("shed.standard", m, ""),
    40,
    "admission rejections count against the class (empty → standard)",
  );
  assert.equal(extractMetric("goodput.critical.count", m, ""), null, "no target for the class");
  const plain = await simulate(
    { model: "meta-llama/llama-3.1-8b-instruct", numRequests: 5, seed: 1 },
    { logger: silentLogger },
  );
  assert.equal(extractMetric("goodput_rps", plain.metrics, ""), null);
  assert.equal(extractMetric("gateway_shed", plain.metrics, ""), 0);
});

test("per-tenant sweep metrics: completions, output tokens and throughput of each tenant", async () => {
  assert.equal(metricProblem("tenant.tenant-critical.tokens_per_sec"), null);
  assert.match(metricProblem("tenant.a.bogus")!, /unknown tenant field "bogus"/);
  assert.match(metricProblem("tenant.a")!, /tenant\.<id>\.<field>/);
  const r = await simulate(
    {
      model: "meta-llama/llama-3.1-8b-instruct",
      workloadSpec: "examples/overload-tiers-workload.yaml",
      numRequests: 60,
      seed: 3,
      sloTtft: "critical=1s",
    },
    { logger: silentLogger },
  );
  const m = r.metrics;
  const ids = ["tenant-critical", "tenant-standard", "tenant-sheddable"];
  const completed = ids.map((t) => extractMetric(`tenant.${t}.completed`, m, "")!);
  assert.equal(
    completed.reduce((a, b) => a + b, 0),
    m.cluster.completed_requests,
    "every completion belongs to one tenant",
  );
  for (const t of ids) {
    const tok = extractMetric(`tenant.${t}.output_tokens`, m, "")!;
    assert.ok(tok > 0);
    assert.equal(extractMetric(`tenant.${t}.tokens_per_sec`, m, ""), tok / m.cluster.vllm_estimated_duration_s);
  }
  assert.equal(extractMetric("tenant.nobody.completed", m, ""), 0);
  const plain = await simulate(
    { model: "meta-llama/llama-3.1-8b-instruct", numRequests: 5, seed: 1 },
    { logger: silentLogger },
  );
  assert.equal(
    extractMetric("tenant.a.completed", plain.metrics, ""),
    null,
    "no per-tenant block without the gateway features",
  );
});
