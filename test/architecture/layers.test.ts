// The layer order of src/ (docs/architecture.md "Layers"): `npm run lint` checks imports against it
// with dependency-cruiser (.dependency-cruiser.cjs, one rule per layer, from scripts/layers.cjs);
// here, that every folder has a layer and that every layer below the top has its rule.

import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";

const ROOT = path.resolve(import.meta.dirname, "..", "..", "..");
const SRC = path.join(ROOT, "src");
const require = createRequire(import.meta.url);
const { LAYERS } = require(path.join(ROOT, "scripts", "layers.cjs")) as { LAYERS: string[][] };
const cruiser = require(path.join(ROOT, ".dependency-cruiser.cjs")) as {
  forbidden: { name: string; from: { path?: string }; to: { path?: string } }[];
};

test("every folder of src/ has exactly one layer", () => {
  const folders = fs
    .readdirSync(SRC, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name);
  const all = LAYERS.flat();
  assert.deepEqual(
    folders.filter((f) => !all.includes(f)),
    [],
  );
  assert.equal(new Set(all).size, all.length, "a folder in two layers");
});

test("each layer below the top has a dependency-cruiser rule forbidding imports from every layer above", () => {
  for (let i = 0; i < LAYERS.length - 1; i++) {
    const rule = cruiser.forbidden.find((r) => r.name === `layer-${LAYERS[i]!.join("-")}`);
    assert.ok(rule !== undefined, `no rule for layer ${LAYERS[i]!.join(", ")}`);
    const from = new RegExp(rule.from.path!);
    const to = new RegExp(rule.to.path!);
    for (const f of LAYERS[i]!) assert.ok(from.test(`src/${f}/x.ts`), `${f} not in the rule's from`);
    for (const higher of LAYERS.slice(i + 1).flat())
      assert.ok(to.test(`src/${higher}/x.ts`), `${higher} not forbidden to ${LAYERS[i]!.join(", ")}`);
    for (const lower of LAYERS.slice(0, i + 1).flat())
      assert.ok(!to.test(`src/${lower}/x.ts`), `${lower} forbidden to ${LAYERS[i]!.join(", ")}`);
  }
});
