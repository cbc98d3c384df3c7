// examples/experiments/overload-tiers.yaml, reduced: at 3× capacity, flow control holds the
// critical class near its TTFT target while sheddable traffic is shed; without it every class
// misses (numbers in examples/experiments/README.md "Overload tiers").
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parsePlan } from "../../src/experiment/index.js";
import { simulate } from "../../src/sim/simulate.js";
import { silentLogger } from "../../src/util/log.js";

const DIR = fileURLToPath(new URL("../../../examples/experiments", import.meta.url));

test("overload tiers: at 3× capacity, flow control keeps critical attainment ≥ 0.9 and sheds sheddable traffic", async () => {
  const file = path.join(DIR, "overload-tiers.yaml");
  const plan = parsePlan(fs.readFileSync(file, "utf8"), { file, baseDir: DIR });
  const at3x = plan.configs.filter((c) => c.label.startsWith("rate=84,"));
  assert.equal(at3x.length, 2);
  const out = new Map<string, { critical: number; sheddable: number; shed: number }>();
  for (const c of at3x) {
    const r = await simulate({ ...c.input, numRequests: 800, seed: 42 }, { logger: silentLogger });
    const pc = r.metrics.cluster.per_class!;
    const shed = r.metrics.gateway?.shedByTier.find(([t]) => t === "sheddable")?.[1] ?? 0;
    out.set(c.label, { critical: pc["critical"]!.slo_attainment, sheddable: pc["sheddable"]!.slo_attainment, shed });
  }
  const fc = out.get("rate=84,variant=flow-control")!;
  const none = out.get("rate=84,variant=no-flow-control")!;
  assert.ok(fc.critical >= 0.9, `critical attainment with flow control ${fc.critical}`);
  assert.ok(none.critical <= 0.5, `critical attainment without flow control ${none.critical}`);
  assert.ok(fc.shed > 100, `sheddable requests shed: ${fc.shed}`);
  assert.equal(none.shed, 0);
  assert.ok(fc.sheddable < fc.critical);
});
