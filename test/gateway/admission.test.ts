import { test } from "node:test";
import assert from "node:assert/strict";
import { GaieLegacyAdmission, TierShedAdmission } from "../../src/gateway/admissionPolicies.js";
import { TenantBudgets } from "../../src/gateway/tenantBudget.js";
import { priorityMap } from "../../src/gateway/priorities.js";
import { loads, state } from "../cluster/helpers.js";
import { req } from "./helpers.js";

test("tier-shed: admits at or below the threshold; above it sheds classes under the min priority", () => {
  const p = new TierShedAdmission(4, 3, priorityMap());
  assert.equal(p.admit(req("a", "batch"), loads(4, 1)), true, "max load 4 ≤ 4");
  assert.equal(p.admit(req("b", "batch"), loads(5, 1)), false);
  assert.equal(p.reason, "tier-shed: class=batch priority=-1 < min=3 load=5");
  assert.equal(p.admit(req("c", "standard"), loads(5, 1)), true, "priority 3 is not < 3");
  assert.equal(p.admit(req("d", "critical"), loads(50)), true);
  assert.equal(
    new TierShedAdmission(0, 3, priorityMap()).admit(req("e", "batch"), state([])),
    true,
    "no candidates: load 0",
  );
});

test("gaie-legacy: non-sheddable classes always pass; sheddable ones are rejected at saturation ≥ 1", () => {
  const p = new GaieLegacyAdmission(5, 0.8, priorityMap());
  const busy = state([
    { queueDepth: 6, kvUtilization: 0.4 },
    { queueDepth: 4, kvUtilization: 0.9 },
  ]);
  assert.equal(p.admit(req("a", "critical"), busy), true);
  assert.equal(p.admit(req("b", "sheddable"), busy), false);
  assert.equal(p.reason, "gaie-saturated: class=sheddable saturation=1.16");
  assert.equal(p.admit(req("c", "batch"), state([{ queueDepth: 1, kvUtilization: 0.1 }])), true);
  assert.equal(p.admit(req("d", "batch"), state([])), false, "no candidates: saturated");
});

test("tenant budgets: worked example, C = 8 and alice 0.25 → limit 2", () => {
  const live = new Set<string>();
  const b = new TenantBudgets(new Map([["alice", 0.25]]), 8, priorityMap(), (r) => live.has(r.id));
  const route = (id: string): void => {
    const r = req(id, "critical", "alice");
    live.add(id);
    b.onRouted(r);
  };
  route("a1");
  route("a2");
  assert.equal(b.rejects(req("x", "batch", "alice")), false, "2 in flight: not over 2.0");
  route("a3");
  assert.equal(b.rejects(req("y", "batch", "alice")), true, "3 in flight > 2.0");
  assert.equal(b.rejects(req("z", "critical", "alice")), false, "critical is not sheddable");
  assert.equal(b.rejects(req("w", "batch", "bob")), false, "no budget");
  live.delete("a1");
  assert.equal(b.rejects(req("v", "batch", "alice")), false, "an ended request frees its slot");
  const zero = new TenantBudgets(new Map([["t", 0]]), 8, priorityMap(), () => true);
  assert.equal(zero.rejects(req("u", "sheddable", "t")), false, "budget 0 admits while nothing is in flight");
});
