// Admission policies (docs/behavior.md
// "Admission") and what a rejected request counts as (docs/behavior.md "Cluster pipeline").
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { admissionPolicies } from "../../src/cluster/admission/admission.js";
import { TokenBucketAdmission } from "../../src/cluster/admission/tokenBucket.js";
import { SloGatedAdmission } from "../../src/cluster/admission/sloGated.js";
import { loads, mkReq, runCli, state, tokens } from "./helpers.js";
import { record, req, run, simConfig } from "../helpers/sim.js";
import { requestRecords } from "../../src/metrics/collect.js";
import { clusterBlock } from "../helpers/cli.js";

const at = (clock: number) => state([{}], clock);

test("admission policy names", () => {
  assert.deepEqual(admissionPolicies.names(), [
    "always-admit",
    "gaie-legacy",
    "reject-all",
    "slo-gated",
    "tier-shed",
    "token-bucket",
  ]);
});

test("token bucket: refill arithmetic, cost = prompt length, reject leaves the level untouched", () => {
  const tb = new TokenBucketAdmission(100, 1000); // C = 100 tokens, R = 1000 tokens/s
  const ask = (t: number, prompt: number, output = 4) => {
    const ok = tb.admit(mkReq("r", tokens(prompt), { output }), at(t));
    return [ok, tb.reason] as const;
  };
  assert.deepEqual(ask(0, 60), [true, ""]); // 100 → 40
  assert.deepEqual(ask(10000, 60), [false, "insufficient tokens"]); // +10 → 50 < 60
  assert.deepEqual(ask(20000, 60), [true, ""]); // +10 → 60 ≥ 60 → 0
  assert.deepEqual(ask(20000, 1), [false, "insufficient tokens"]); // e = 0: no refill
  assert.deepEqual(ask(20500, 1, 5000), [false, "insufficient tokens"]); // +0.5 → 0.5 < 1 (output irrelevant)
  assert.deepEqual(ask(21000, 1, 5000), [true, ""]); // +0.5 → 1.0 ≥ 1 → 0
  assert.deepEqual(ask(1_000_000, 101), [false, "insufficient tokens"]); // refill capped at C = 100
  assert.deepEqual(ask(1_000_000, 100), [true, ""]); // exactly C
  assert.deepEqual(ask(1_000_000, 0), [true, ""]); // an empty prompt costs nothing
});

test("token bucket: a clock moving backwards (negative latency) does not refill", () => {
  const tb = new TokenBucketAdmission(10, 1_000_000);
  assert.equal(tb.admit(mkReq("a", tokens(10)), at(100)), true); // level 0, last = 100
  assert.equal(tb.admit(mkReq("b", tokens(1)), at(50)), false, "e < 0: no refill");
  assert.equal(tb.admit(mkReq("c", tokens(5)), at(105)), true, "5 ticks × 1 token/tick");
});

test("token bucket through the cluster: admission at T0 + La, hand-computed decisions", () => {
  // 1 token per 500 ticks
  const cfg = simConfig({
    params: { tokenBucketCapacity: 100, tokenBucketRefillRate: 2000 },
    cluster: { admission: { policy: "token-bucket", latency: 5000 } },
    trace: { level: "decisions" },
  });
  // admission clocks: 5000, 5000, 15000, 35000 (refill from last=0: first call refills +10 → capped 100)
  const r = run(cfg, [
    req("request_0", 0, 70, 2),
    req("request_1", 0, 31, 2),
    req("request_2", 10000, 49, 2),
    req("request_3", 30000, 50, 2),
  ]);
  const adm = r.trace!.admissions.map((a) => [a.requestId, a.clock, a.admitted, a.reason]);
  assert.deepEqual(adm, [
    ["request_0", 5000, true, ""], // first call: +10 capped at 100; 100 − 70 = 30
    ["request_1", 5000, false, "insufficient tokens"], // e = 0; 30 < 31
    ["request_2", 15000, true, ""], // 30 + 20 = 50; 50 − 49 = 1
    ["request_3", 35000, false, "insufficient tokens"], // 1 + 40 = 41 < 50
  ]);
  assert.equal(r.metrics.anomalies.rejected, 2);
  assert.throws(() => record(r, "request_1"), /no request/);
  assert.equal(record(r, "request_2").completed, true);
});

test("reject-all rejects everything with reason reject-all; always-admit admits with an empty reason", () => {
  const ra = admissionPolicies.create("reject-all", {}, { numInstances: 1 });
  assert.equal(ra.admit(mkReq("r", tokens(1)), at(0)), false);
  assert.equal(ra.reason, "reject-all");
  const aa = admissionPolicies.create("always-admit", {}, { numInstances: 1 });
  assert.equal(aa.admit(mkReq("r", tokens(1)), at(0)), true);
  assert.equal(aa.reason, "");
});

test("slo-gated: sheddable tier rejected only when the mean EffectiveLoad exceeds the threshold", () => {
  const g = (thr: number) => new SloGatedAdmission(thr);
  const ask = (p: SloGatedAdmission, cls: string, s = loads(3, 0)) => {
    const ok = p.admit(mkReq("r", tokens(16), { extra: { sloClass: cls } }), s);
    return [ok, p.reason] as const;
  };
  // mean load = 1.5
  assert.deepEqual(ask(g(1.5), "sheddable"), [true, ""], "equal to the threshold is not above it");
  assert.deepEqual(ask(g(1.49), "sheddable"), [false, "slo-gated"]);
  assert.deepEqual(ask(g(1.49), "batch"), [false, "slo-gated"]);
  assert.deepEqual(ask(g(1.49), "background"), [false, "slo-gated"]);
  for (const cls of ["critical", "standard", ""]) assert.deepEqual(ask(g(0), cls, loads(1000, 1000)), [true, ""], cls);
  // All three load parts count.
  const s = state([{ queueDepth: 1 }, { batchSize: 1, inFlight: 1 }]); // mean 1.5
  assert.deepEqual(ask(g(1.4), "sheddable", s), [false, "slo-gated"]);
  assert.deepEqual(ask(g(0), "sheddable", loads(0, 0)), [true, ""]);
});

test("slo-gated through the cluster: threshold 0 sheds every sheddable after the first", () => {
  const classes = ["sheddable", "critical", "batch", "standard", "", "background", "sheddable", "critical"];
  const reqs = classes.map((c, i) => req(`request_${i}`, i, 32, 8, { sloClass: c }));
  const r = run(
    simConfig({
      params: { admissionLoadThreshold: 0 },
      cluster: { admission: { policy: "slo-gated" } },
      trace: { level: "decisions" },
    }),
    reqs,
  );
  const rejected = r.trace!.admissions.filter((a) => !a.admitted).map((a) => [a.requestId, a.reason]);
  assert.deepEqual(rejected, [
    ["request_2", "slo-gated"],
    ["request_5", "slo-gated"],
    ["request_6", "slo-gated"],
  ]);
  assert.equal(r.metrics.anomalies.rejected, 3);
  assert.equal(r.metrics.cluster.completed_requests, 5);
});

test("rejected requests: Rejected Requests counter, absent from records and injected_requests; generated = injected + rejected", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "blis-adm-"));
  const file = path.join(dir, "results.json");
  const res = await runCli(
    "--admission-policy",
    "token-bucket",
    "--token-bucket-capacity",
    "150",
    "--token-bucket-refill-rate",
    "800",
    "--results-path",
    file,
  );
  assert.equal(res.code, 0, res.stderr.join("\n"));
  const m = /Rejected Requests: (\d+)\n/.exec(res.stdout);
  assert.ok(m, res.stdout);
  const rejected = Number(m[1]);
  assert.ok(rejected > 0 && rejected < 12, `rejected ${rejected}`);
  const c = clusterBlock(res.stdout);
  assert.equal((c["injected_requests"] as number) + rejected, 12);
  const out = JSON.parse(fs.readFileSync(file, "utf8")) as {
    injected_requests: number;
    requests: { requestID: string }[];
  };
  assert.equal(out.injected_requests, c["injected_requests"]);
  assert.equal(out.requests.length, out.injected_requests);
  const ids = new Set(out.requests.map((x) => x.requestID));
  assert.equal(ids.size, 12 - rejected);
  fs.rmSync(dir, { recursive: true });
});

test("library: rejected requests leave no ledger record; generated = injected + rejected", () => {
  const reqs = Array.from({ length: 10 }, (_, i) => req(`request_${i}`, i * 1000, 40, 4));
  const r = run(
    simConfig({
      params: { tokenBucketCapacity: 100, tokenBucketRefillRate: 1 },
      cluster: { admission: { policy: "token-bucket" } },
    }),
    reqs,
  );
  // 100 → 60 → 20 → reject… (refill 0.001 token per 1000 ticks)
  assert.equal(r.metrics.anomalies.rejected, 8);
  const recs = requestRecords(r.ledger).map((x) => x.requestID);
  assert.deepEqual(recs, ["request_0", "request_1"]);
  assert.equal(r.metrics.cluster.injected_requests, 2);
  assert.equal(r.metrics.generated, r.metrics.cluster.injected_requests + r.metrics.anomalies.rejected);
  assert.equal(r.metrics.routed, 2);
});
