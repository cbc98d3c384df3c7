// Preemption victims (docs/behavior.md "Preemption"): fcfs (seed name tail) evicts the last running
// request, priority the least urgent, latest arrival first.

import { test } from "node:test";
import assert from "node:assert/strict";
import type { Instance } from "../../src/instance/instance.js";
import { req, run, simConfig } from "../helpers/sim.js";
import type { PreemptionRule } from "../../src/policy/preemption.js";

/**
 * Running [A critical, B background, C standard] in arrival order, each with a one-block prompt;
 * the cache has room for their prompts and two more blocks, so C's first decode block is not free.
 * Returns the requests preempted in the first step that preempts.
 */
function firstVictims(rule: PreemptionRule): string[] {
  const reqs = [
    req("A", 0, 4, 12, { sloClass: "critical" }),
    req("B", 0, 4, 12, { sloClass: "background" }),
    req("C", 0, 4, 12, { sloClass: "standard" }),
  ];
  let victims: string[] | null = null;
  let before = new Set<string>();
  const observer = {
    afterEvent() {},
    afterStep(inst: Instance) {
      const running = new Set(inst.running.map((r) => r.id));
      if (victims === null && inst.preemptionCount > 0) victims = [...before].filter((id) => !running.has(id));
      before = running;
    },
  };
  run(
    simConfig({
      kv: { blockSize: 4, totalKvBlocks: 5 },
      policy: { preemption: rule, priority: "static-class", scheduler: "fcfs" },
    }),
    reqs,
    { instanceObserver: observer },
  );
  assert.ok(victims !== null, "some request was preempted");
  return victims;
}

test("fcfs (seed name tail) evicts the last running request: C, which needed the block, itself", () => {
  assert.deepEqual(firstVictims("tail"), ["C"]);
});

test("priority evicts the least urgent running request, not the tail", () => {
  assert.deepEqual(firstVictims("priority"), ["B"]);
});

test("the preemption names of today's BLIS are accepted, from the flag and from the bundle's preemption.policy", async () => {
  const { cli } = await import("../helpers/cli.js");
  const base = [
    "run",
    "--model",
    "meta-llama/llama-3.1-8b-instruct",
    "--num-requests",
    "20",
    "--total-kv-blocks",
    "300",
  ];
  const tail = await cli([...base, "--preemption-policy", "tail"]);
  const fcfs = await cli([...base, "--preemption-policy", "fcfs"]);
  assert.equal(fcfs.code, 0);
  assert.equal(fcfs.stdout, tail.stdout, "fcfs is tail");
  const prio = await cli([...base, "--preemption-policy", "priority", "--priority-policy", "static-class"]);
  assert.equal(prio.code, 0, prio.stderr.join("\n"));
  const bad = await cli([...base, "--preemption-policy", "lifo"]);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr.at(-1)!, /lifo/);
});
