import { test } from "node:test";
import assert from "node:assert/strict";
import { parseDurationMs } from "../../src/metrics/sloTargets.js";

test("SLO durations take Go's units, both micro signs included", () => {
  assert.equal(parseDurationMs("250ms"), 250);
  assert.equal(parseDurationMs("1m30s"), 90_000);
  assert.equal(parseDurationMs("1500us"), 1.5);
  assert.equal(parseDurationMs("1500\u00b5s"), 1.5); // MICRO SIGN
  assert.equal(parseDurationMs("1500\u03bcs"), 1.5); // GREEK SMALL LETTER MU
  assert.equal(parseDurationMs("2h"), 7_200_000);
  assert.equal(parseDurationMs("-2s"), -2000);
  for (const bad of ["", "5", "5d", "ms", "1.5 s"]) assert.equal(parseDurationMs(bad), null, bad);
});
