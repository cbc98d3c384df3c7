// Every registered feature's flags reach every command that runs simulations and the flag names
// sweep plans and search spaces accept: the lists are derived from the registry, never copied.
import { test } from "node:test";
import assert from "node:assert/strict";
import { features } from "../../src/features/registry.js";
import "../../src/features/builtins.js";
import { runFlags } from "../../src/config/runFlags.js";
import { PLAN_OWN_KEYS, PLAN_RUN_FLAGS } from "../../src/cli/planCommand.js";
import { SATURATION_OWN_KEYS, SATURATION_RUN_FLAGS } from "../../src/cli/saturationCommand.js";
import { replayRunFlags } from "../../src/cli/replayCommand.js";
import { lookupFlag } from "../../src/experiment/configYaml.js";
import { runArgs } from "../../src/plan/runArgs.js";

const featureFlags = features.all().flatMap((f) => f.flags.map((flag) => flag.flag));
/** Feature flags but those a command sets itself (the plan sizes the fleet; the search runs the detectors). */
const flagsBut = (own: ReadonlySet<string>): string[] =>
  features.all().flatMap((f) => f.flags.filter((flag) => !own.has(flag.key)).map((flag) => flag.flag));
const planFlags = flagsBut(PLAN_OWN_KEYS);
const saturationFlags = flagsBut(SATURATION_OWN_KEYS);

test("the built-in features have flags", () => {
  assert.ok(featureFlags.includes("--speculative-config"));
  assert.ok(featureFlags.includes("--lora-config"));
  assert.ok(featureFlags.includes("--queue-snapshot-at-us"));
});

test("every feature flag is a flag of run, replay, plan and saturation, and a plan file's flag name", () => {
  const lists: [string, readonly { flag: string }[], readonly string[]][] = [
    ["run", runFlags(), featureFlags],
    ["replay", replayRunFlags(), featureFlags],
    ["plan", PLAN_RUN_FLAGS, planFlags],
    ["saturation", SATURATION_RUN_FLAGS, saturationFlags],
  ];
  for (const [command, list, expected] of lists)
    for (const flag of expected)
      assert.ok(
        list.some((f) => f.flag === flag),
        `${command} lacks ${flag}`,
      );
  assert.ok(planFlags.includes("--speculative-config") && !planFlags.includes("--model-autoscaler-interval-us"));
  assert.ok(saturationFlags.includes("--flow-control") && !saturationFlags.includes("--detectors"));
  for (const flag of featureFlags) {
    const def = lookupFlag(flag.slice(2));
    assert.ok(typeof def !== "string", `plan files refuse ${flag}: ${String(def)}`);
  }
});

test("a point's command line carries feature options", () => {
  const args = runArgs({ model: "m", queueSnapshotAtUs: 5000, loraConfig: "a.yaml" } as Parameters<typeof runArgs>[0]);
  assert.deepEqual(args, ["--model", "m", "--lora-config", "a.yaml", "--queue-snapshot-at-us", "5000"]);
});
