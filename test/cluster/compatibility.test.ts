import { test } from "node:test";
import assert from "node:assert/strict";
import { refuseIncompatible } from "../../src/cluster/compatibility.js";
import type { FeatureDescriptor } from "../../src/cluster/extension.js";
import { UserError } from "../../src/util/errors.js";

const a: FeatureDescriptor = { name: "a", incompatible: [{ with: "b", message: "a cannot be combined with b" }] };
const b: FeatureDescriptor = { name: "b", incompatible: [{ with: "c", message: "b cannot be combined with c" }] };
const c: FeatureDescriptor = { name: "c" };

test("a declared incompatibility refuses the pair with its message, whichever side is listed first", () => {
  assert.throws(
    () => refuseIncompatible([a, b]),
    (e: Error) => e instanceof UserError && e.message === "a cannot be combined with b",
  );
  assert.throws(() => refuseIncompatible([b, a]), { message: "a cannot be combined with b" });
});

test("features that declare nothing against each other run together", () => {
  refuseIncompatible([a, c]);
  refuseIncompatible([a]);
  refuseIncompatible([]);
});

test("the first declared incompatibility wins: features in order, each one's in its declared order", () => {
  assert.throws(() => refuseIncompatible([a, b, c]), { message: /^a cannot be combined with b$/ });
  assert.throws(() => refuseIncompatible([b, c]), { message: /^b cannot be combined with c$/ });
});
