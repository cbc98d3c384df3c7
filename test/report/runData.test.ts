import { test } from "node:test";
import assert from "node:assert/strict";
import { simulate } from "../../src/sim/simulate.js";
import { checkRunReportData, renderRunReport, runReportData } from "../../src/report/index.js";
import { UserError } from "../../src/util/errors.js";

const MODEL = "meta-llama/llama-3.1-8b-instruct";

test("run report data survives a JSON round trip and renders the same page", async () => {
  const res = await simulate({ model: MODEL, numRequests: 60, rate: 30, numInstances: 2, report: "unused.html" });
  const data = runReportData(res);
  assert.equal(data.requests.slo.length, res.metrics.cluster.injected_requests);
  assert.ok(data.timeSeries !== null && data.timeSeries.timesUs.length > 0, "sampling is on with --report");
  const back = checkRunReportData(JSON.parse(JSON.stringify(data)), "x.json");
  const html = renderRunReport(data);
  assert.equal(renderRunReport(back), html);
  assert.match(html, /<canvas id="chart-ttft-cdf"/);
  // The page embeds the cluster block as blis run prints it.
  assert.ok(html.includes(`&quot;completed_requests&quot;: ${res.metrics.cluster.completed_requests},`));
});

test("a run that completes nothing still gets a report (notes instead of empty charts)", async () => {
  const res = await simulate({ model: MODEL, numRequests: 20, rate: 10, horizon: 1000, report: "unused.html" });
  const html = renderRunReport(runReportData(res));
  assert.match(html, /No requests have a TTFT value/);
  assert.match(html, /No time series/);
});

test("malformed report data is a UserError naming the problem", async () => {
  const res = await simulate({ model: MODEL, numRequests: 10, rate: 10, report: "unused.html" });
  const data = JSON.parse(JSON.stringify(runReportData(res))) as Record<string, Record<string, unknown[]>>;
  data["requests"]!["ttftUs"]!.pop();
  assert.throws(
    () => checkRunReportData(data, "x.json"),
    (e: unknown) => e instanceof UserError && /requests\.ttftUs has 9 values, expected 10/.test(e.message),
  );
  assert.throws(() => checkRunReportData({ format: "other" }, "x.json"), /format is "other"/);
});
