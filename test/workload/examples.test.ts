import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { test } from "node:test";
import { createRequestSource, generateAll, generationEnd, loadWorkloadSpec } from "../../src/workload/index.js";
import { capturingLogger, EXAMPLES } from "./helpers.js";

// Policy bundles live in examples/ too; they are not workload specs.
function isPolicyBundle(text: string): boolean {
  return /^(admission|routing|priority|scheduler):/m.test(text);
}

const files = readdirSync(EXAMPLES).filter((f) => f.endsWith(".yaml"));

test("examples directory has workload specs", () => {
  const specs = files.filter((f) => !isPolicyBundle(readFileSync(EXAMPLES + f, "utf8")));
  assert.ok(specs.length >= 6, `found ${specs.join(", ")}`);
});

for (const file of files) {
  const text = readFileSync(EXAMPLES + file, "utf8");
  if (isPolicyBundle(text)) continue;
  test(`example ${file} loads and generates`, () => {
    const { logger } = capturingLogger();
    const spec = loadWorkloadSpec(EXAMPLES + file, { logger });
    assert.equal(spec.version, "2");
    // Files without num_requests/horizon need a cap from the command line.
    const maxRequests = spec.num_requests > 0 ? spec.num_requests : 300;
    const reqs = generateAll(spec, { maxRequests, logger });
    assert.equal(reqs.length, maxRequests);
    for (let i = 0; i < reqs.length; i++) {
      const r = reqs[i]!;
      assert.equal(r.id, `request_${i}`);
      assert.equal(r.tokens.length, r.inputLen + r.outputLen);
      assert.ok(r.arrival > 0);
      if (i > 0) assert.ok(r.arrival >= reqs[i - 1]!.arrival);
      assert.ok(["", "critical", "standard", "sheddable", "batch", "background"].includes(r.sloClass));
    }
    // Same seed → same requests.
    const again = generateAll(spec, { maxRequests, logger });
    assert.deepStrictEqual(again, reqs);
    // The unbounded case is refused, unless finite lifecycle windows bound every client.
    if (spec.num_requests === 0 && spec.horizon === 0 && generationEnd(spec) === Infinity) {
      assert.throws(() => createRequestSource(spec, { logger }), /Workload requires either num_requests or --horizon/);
    }
  });
}

test("v1 examples map interactive → standard with a deprecation warning", () => {
  const { logger, lines } = capturingLogger();
  const spec = loadWorkloadSpec(EXAMPLES + "standard-session-matched.yaml", { logger });
  assert.equal(spec.clients[0]!.slo_class, "standard");
  assert.equal(lines.length, 1);
  assert.match(lines[0]!, /deprecated/);
});
