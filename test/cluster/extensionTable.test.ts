// The one place extension declarations are checked (src/cluster/extensionTable.ts), as a property:
// over random sets of extensions, attaching succeeds exactly when every rank range lies in 3–31,
// no two ranges overlap and no exclusive capability is claimed twice; then every rank of a range
// dispatches to its owner and the exclusive slots hold their claimants.
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { ExtensionTable, FIRST_EXTENSION_RANK, LAST_RANK } from "../../src/cluster/extensionTable.js";
import {
  EXCLUSIVE_CAPABILITIES,
  type Capability,
  type ClusterExtension,
  type RankRange,
} from "../../src/cluster/extension.js";
import { InvariantError } from "../../src/util/errors.js";
import { FC_SEED } from "../helpers/fc.js";

const CAPABILITIES: readonly Capability[] = [
  "routes",
  "admits",
  "timed",
  "evicts",
  "instances",
  "instance-triggered",
  "fleet",
];

interface Spec {
  ranks: RankRange | null;
  capabilities: Capability[];
}

/** An extension with every method, so that only its declarations decide whether it attaches. */
function extension(name: string, s: Spec): ClusterExtension {
  return {
    descriptor: { name, ranks: s.ranks, capabilities: s.capabilities },
    attach: () => undefined,
    onEvent: () => undefined,
    route: () => undefined,
    onArrival: () => undefined,
    admit: () => ({ admitted: true, reason: "", queued: false }),
    onRouted: () => undefined,
    nextTime: () => Infinity,
    nextIsEarly: () => false,
    runNext: () => undefined,
    afterInstanceEvents: () => undefined,
    instanceConfig: () => ({}),
  };
}

// Mostly small ranks, so that ranges touch and overlap often; some past either end; some reversed.
const rangeArb: fc.Arbitrary<RankRange | null> = fc.oneof(
  fc.constant(null),
  fc
    .tuple(fc.integer({ min: 1, max: 12 }), fc.integer({ min: 0, max: 3 }))
    .map(([first, width]) => ({ first, last: first + width })),
  fc
    .tuple(fc.integer({ min: 0, max: LAST_RANK + 3 }), fc.integer({ min: 0, max: 4 }))
    .map(([first, width]) => ({ first, last: first + width })),
  fc
    .tuple(fc.integer({ min: 4, max: 20 }), fc.integer({ min: 1, max: 3 }))
    .map(([last, d]) => ({ first: last + d, last })),
);
const specArb: fc.Arbitrary<Spec> = fc.record({
  ranks: rangeArb,
  // Few capabilities each, so that rank clashes are not hidden behind capability clashes.
  capabilities: fc.subarray([...CAPABILITIES], { maxLength: 2 }),
});

/** The index of the first spec the table must refuse, or -1 when all attach. */
function firstInvalid(specs: readonly Spec[]): number {
  for (let i = 0; i < specs.length; i++) {
    const r = specs[i]!.ranks;
    if (r !== null) {
      if (r.first > r.last || r.first < FIRST_EXTENSION_RANK || r.last > LAST_RANK) return i;
      for (let j = 0; j < i; j++) {
        const o = specs[j]!.ranks;
        if (o !== null && r.first <= o.last && o.first <= r.last) return i;
      }
    }
    for (const c of EXCLUSIVE_CAPABILITIES) {
      if (specs[i]!.capabilities.includes(c) && specs.slice(0, i).some((s) => s.capabilities.includes(c))) return i;
    }
  }
  return -1;
}

test("attaching succeeds exactly for disjoint in-range ranks and single exclusive claims; ranks dispatch to owners", () => {
  let refused = 0;
  let accepted = 0;
  fc.assert(
    fc.property(fc.array(specArb, { minLength: 1, maxLength: 5 }), (specs) => {
      const table = new ExtensionTable();
      const exts = specs.map((s, i) => extension(`e${i}`, s));
      const bad = firstInvalid(specs);
      for (let i = 0; i < exts.length; i++) {
        if (i === bad) {
          assert.throws(() => table.add(exts[i]!), InvariantError, `e${i} must be refused`);
          refused++;
          return;
        }
        table.add(exts[i]!);
      }
      accepted++;
      for (let r = 0; r <= LAST_RANK; r++) {
        const owner = exts.find((e) => {
          const x = e.descriptor.ranks;
          return x !== null && x.first <= r && r <= x.last;
        });
        assert.equal(table.byRank[r] ?? null, owner ?? null, `rank ${r}`);
      }
      const claimant = (c: Capability): ClusterExtension | null =>
        exts.find((e) => e.descriptor.capabilities.includes(c)) ?? null;
      assert.equal(table.router, claimant("routes"));
      assert.equal(table.admitter, claimant("admits"));
      assert.equal(table.timed, claimant("timed"));
      assert.equal(table.instanceTriggered, claimant("instance-triggered") !== null);
    }),
    { seed: FC_SEED, numRuns: 400 },
  );
  assert.ok(refused > 50 && accepted > 50, `both outcomes were exercised (refused ${refused}, accepted ${accepted})`);
});
