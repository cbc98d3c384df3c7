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
  assert.equal(extractMetric("shed.standard", m, ""), 40, "admission rejections count against the class (empty → standard)");
  assert.equal(extractMetric("goodput.critical.count", m, ""), null, "no target for the class");
  const plain = await simulate({ model: "meta-llama/llama-3.1-8b-instruct", numRequests: 5, seed: 1 }, { logger: silentLogger });
  assert.equal(extractMetric("goodput_rps", plain.metrics, ""), null);
  assert.equal(extractMetric("gateway_shed", plain.metrics, ""), 0);
});
