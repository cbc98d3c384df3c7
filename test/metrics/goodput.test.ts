import { test } from "node:test";
import assert from "node:assert/strict";
import { RequestLedger } from "../../src/core/ledger.js";
import { computeGoodput } from "../../src/metrics/goodput.js";
import { mergeSloTargets } from "../../src/metrics/sloTargets.js";
import { tenantMetrics, renderTenantMetrics } from "../../src/metrics/tenants.js";
import { mkReq, tokens } from "../cluster/helpers.js";

/** A ledger of critical requests: [ttft µs, e2e µs] for completed ones, null for unfinished. */
function ledgerOf(rows: ([number, number] | null)[], tenants: string[] = []): RequestLedger {
  const l = new RequestLedger();
  rows.forEach((row, i) => {
    const r = mkReq(`request_${i}`, tokens(4), {
      output: 10 * (i + 1),
      extra: { sloClass: "critical", tenantId: tenants[i] ?? "" },
    });
    Object.defineProperty(r, "seq", { value: i });
    r.instance = 0;
    l.register(r);
    if (row !== null) {
      r.ttft = row[0];
      r.schedDelay = 0;
      l.complete(r, row[1], 1000);
    }
  });
  return l;
}

test("goodput worked example: 10 arrivals, 7 completed, 6 within TTFT 100 ms → attainment 0.6", () => {
  const rows: ([number, number] | null)[] = [
    ...Array.from({ length: 6 }, () => [50000, 900000] as [number, number]),
    [150000, 900000],
    null,
    null,
  ];
  const l = ledgerOf(rows);
  const g = computeGoodput(l, { critical: { ttft_ms: 100, itl_ms: 0, e2e_ms: 0 } }, new Map([["critical", 10]]), 2e6);
  const c = g.per_class["critical"]!;
  assert.equal(c.count, 10);
  assert.equal(c.slo_attainment, 0.6);
  assert.equal(c.goodput_rps, 3);
  assert.deepEqual(c.slo_attainment_by_dim, { ttft: 6 / 7 });
  assert.equal(g.slo_attainment, 0.6);
  assert.deepEqual(Object.keys(c), [
    "count",
    "e2e_p99_ms",
    "goodput_rps",
    "itl_mean_ms",
    "slo_attainment",
    "slo_attainment_by_dim",
    "ttft_p99_ms",
  ]);
  const none = computeGoodput(
    ledgerOf([null]),
    { critical: { ttft_ms: 100, itl_ms: 0, e2e_ms: 0 } },
    new Map([["critical", 1]]),
    1e6,
  );
  assert.deepEqual(Object.keys(none), ["per_class"], "overall keys omitted when 0");
});

test("goodput targets: flag over trace header over workload spec, per dimension", () => {
  const spec = { critical: { ttft_ms: 10, itl_ms: 2, e2e_ms: 100 }, batch: { ttft_ms: 0, itl_ms: 0, e2e_ms: 0 } };
  const header = { critical: { ttft_ms: 20, itl_ms: 0, e2e_ms: 0 } };
  assert.deepEqual(mergeSloTargets({ e2e: { critical: 300 } }, header, spec), {
    critical: { ttft_ms: 20, itl_ms: 2, e2e_ms: 300 },
  });
});

test("per-tenant block: requests and tokens by tenant, Jain's index over tokens", () => {
  // a: 10 + 30 tokens... requests 1 and 3 → 10 + 30 = 40; b: request 2 → 20 (requested outputs 10, 20, 30).
  const l = ledgerOf(
    [
      [1, 2],
      [1, 2],
      [1, 2],
    ],
    ["a", "b", "a"],
  );
  const m = tenantMetrics(l)!;
  assert.deepEqual(m.tenants, [
    ["a", 2, 40],
    ["b", 1, 20],
  ]);
  assert.equal(
    renderTenantMetrics(m),
    "=== Per-Tenant Metrics ===\n  a: requests=2, tokens=40\n  b: requests=1, tokens=20\n  Jain Fairness Index: 0.9000\n",
  );
  assert.equal(tenantMetrics(ledgerOf([[1, 2]])), null, "no tenant: no block");
});
