// The one registry type of named descriptors (policies through PolicyRegistry, latency backends).

import { test } from "node:test";
import assert from "node:assert/strict";
import { Registry } from "../../src/util/registry.js";
import { PolicyRegistry } from "../../src/util/policyRegistry.js";

interface Thing {
  readonly name: string;
  readonly size: number;
}

test("a registry keeps descriptors by name: sorted names, registration order, removal", () => {
  const r = new Registry<Thing>("thing");
  r.register({ name: "b", size: 2 });
  r.register({ name: "a", size: 1 });
  assert.equal(r.get("a")?.size, 1);
  assert.ok(r.has("b"));
  assert.equal(r.get("c"), undefined);
  assert.deepEqual(r.names(), ["a", "b"]);
  assert.deepEqual(r.listed(), ["b", "a"]);
  assert.deepEqual(
    r.all().map((t) => t.size),
    [2, 1],
  );
  r.unregister("b");
  assert.deepEqual(r.names(), ["a"]);
  assert.ok(!r.has("b"));
});

test("a name registers once; the error names the family", () => {
  const r = new Registry<Thing>("thing");
  r.register({ name: "a", size: 1 });
  assert.throws(() => r.register({ name: "a", size: 3 }), { message: 'thing "a" is already registered' });
  assert.equal(r.get("a")?.size, 1);
});

test("a policy registry lists as the generic registry does", () => {
  const p = new PolicyRegistry<null, number>("scorer");
  p.register("zeta", () => 1);
  p.register("alpha", () => 2);
  assert.deepEqual(p.names(), ["alpha", "zeta"]);
  assert.deepEqual(p.listed(), ["zeta", "alpha"]);
  assert.equal(p.create("alpha", {}, null), 2);
  assert.throws(() => p.register("alpha", () => 3), { message: 'scorer "alpha" is already registered' });
  p.unregister("zeta");
  assert.deepEqual(p.names(), ["alpha"]);
});
