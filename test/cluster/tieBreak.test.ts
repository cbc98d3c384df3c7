// --routing-tie-break (docs/behavior.md "Routing and scorers"): first keeps the lowest position;
// random draws once from the router stream, only when there is a tie.
import { test } from "node:test";
import assert from "node:assert/strict";
import { routingPolicies, type RoutingPolicy } from "../../src/cluster/routing/routing.js";
import { deriveStreamSeed, Rng } from "../../src/engine/rng.js";
import type { ScorerSpec } from "../../src/cluster/scorers/scorer.js";
import type { RouterState } from "../../src/cluster/snapshot.js";
import { loads, mkReq, routingCtx, runCli, snap, state, tokens } from "./helpers.js";

const QD: ScorerSpec[] = [{ name: "queue-depth", weight: 1 }];

function policy(name: string, n: number, params: Record<string, unknown>, scorers: ScorerSpec[] = QD): RoutingPolicy {
  return routingPolicies.create(name, params, routingCtx(n, { scorers }));
}

const target = (p: RoutingPolicy, s: RouterState): number => p.route(mkReq("r", tokens(16)), s).target;

for (const name of ["weighted", "least-loaded"]) {
  test(`${name}: first → lowest position among ties; random → uniform among the tied only`, () => {
    const first = policy(name, 4, {});
    assert.equal(target(first, loads(1, 0, 0, 1)), 1);
    assert.equal(target(first, loads(0, 0, 0, 0)), 0);
    const random = policy(name, 4, { routingTieBreak: "random" });
    const counts = [0, 0, 0, 0];
    for (let i = 0; i < 3000; i++) counts[target(random, loads(2, 0, 1, 0))]!++;
    assert.equal(counts[0]! + counts[2]!, 0, "never a candidate outside the tie");
    for (const k of [1, 3]) assert.ok(counts[k]! > 1350 && counts[k]! < 1650, `instance ${k}: ${counts[k]}`);
    const all = [0, 0, 0, 0];
    for (let i = 0; i < 4000; i++) all[target(random, loads(5, 5, 5, 5))]!++;
    for (const c of all) assert.ok(c > 850 && c < 1150, `${all.join(",")}`);
  });

  test(`${name}: random draws once per tie from the router stream of --seed, never without a tie`, () => {
    const tie = loads(0, 0, 0);
    const unique = loads(3, 0, 3);
    const a = policy(name, 3, { routingTieBreak: "random", seed: 7 });
    const b = policy(name, 3, { routingTieBreak: "random", seed: 7 });
    const seqA = [target(a, tie), target(a, tie), target(a, tie)];
    // Decisions without a tie in between consume no draw.
    const seqB = [target(b, tie), target(b, unique), target(b, unique), target(b, tie), target(b, tie)];
    assert.deepEqual([seqB[0], seqB[3], seqB[4]], seqA);
    assert.deepEqual([seqB[1], seqB[2]], [1, 1]);
    // The draws are intn(|tied|) of the stream labelled "router".
    const rng = new Rng(deriveStreamSeed(7n, "router"));
    assert.deepEqual(seqA, [rng.intn(3), rng.intn(3), rng.intn(3)]);
    // Another seed, another sequence (over enough ties to make a coincidence negligible).
    const c = policy(name, 3, { routingTieBreak: "random", seed: 8 });
    const d = policy(name, 3, { routingTieBreak: "random", seed: 7 });
    const many = (p: RoutingPolicy) => Array.from({ length: 40 }, () => target(p, tie)).join("");
    assert.notEqual(many(c), many(d));
  });
}

test("weighted: ties are exact composite equality; the reason and scores are those of the pick", () => {
  const p = policy("weighted", 3, { routingTieBreak: "random", seed: 3 }, [{ name: "kv-utilization", weight: 1 }]);
  const s = state([{ kvUtilization: 0.5 }, { kvUtilization: 0.5 + 1e-12 }, { kvUtilization: 0.5 }]);
  const seen = new Set<number>();
  for (let i = 0; i < 200; i++) {
    const d = p.route(mkReq("r", tokens(16)), s);
    seen.add(d.target);
    assert.equal(d.reason, "weighted-scoring (score=0.500)");
    assert.equal(d.scores![d.target], 0.5);
  }
  assert.deepEqual([...seen].sort(), [0, 2]);
});

test("random tie-break over a candidate subset picks among the tied candidates' positions", () => {
  const p = policy("least-loaded", 4, { routingTieBreak: "random" });
  const s: RouterState = {
    snapshots: [snap(1, { inFlight: 2 }), snap(3, { inFlight: 2 }), snap(2, { inFlight: 5 })],
    clock: 0,
  };
  const seen = new Set<number>();
  for (let i = 0; i < 100; i++) seen.add(target(p, s));
  assert.deepEqual([...seen].sort(), [0, 1]);
});

test("--routing-tie-break through the CLI: checked, deterministic, and first is today's output", async () => {
  const base = ["--num-instances", "3", "--routing-policy", "weighted"];
  const plain = await runCli(...base);
  const first = await runCli(...base, "--routing-tie-break", "first");
  assert.equal(first.code, 0, first.stderr.join("\n"));
  assert.equal(first.stdout, plain.stdout);
  const r1 = await runCli(...base, "--routing-tie-break", "random");
  const r2 = await runCli(...base, "--routing-tie-break", "random");
  assert.equal(r1.code, 0, r1.stderr.join("\n"));
  assert.equal(r1.stdout, r2.stdout, "same seed, same output");
  assert.notEqual(r1.stdout, plain.stdout, "the idle start is full of ties");
  const bad = await runCli(...base, "--routing-tie-break", "sometimes");
  assert.equal(bad.code, 1);
  assert.deepEqual(bad.stderr, ['error: --routing-tie-break must be "first" or "random", got "sometimes"']);
  // Checked even where it has no effect; a valid value there only warns.
  const rr = await runCli("--routing-tie-break", "Random");
  assert.deepEqual(rr.stderr, ['error: --routing-tie-break must be "first" or "random", got "Random"']);
  const warned = await runCli("--routing-tie-break", "random");
  assert.equal(warned.code, 0);
  assert.ok(
    warned.stderr.some((l) => l.includes('--routing-tie-break has no effect when routing policy is \\"round-robin\\"')),
    warned.stderr.join("\n"),
  );
});
