// Every registered feature's flags reach every command that runs simulations and the flag names
// sweep plans and search spaces accept: the lists are derived from the registry, never copied.
import { test } from "node:test";
import assert from "node:assert/strict";
import { features } from "../../src/features/registry.js";
import "../../src/features/builtins.js";
import { runFlags } from "../../src/config/runFlags.js";
import { PLAN_OWN_KEYS, PLAN_RUN_FLAGS } from "../../src/cli/planCommand.js";
import { SATURATION_RUN_FLAGS } from "../../src/cli/saturationCommand.js";
import { replayRunFlags } from "../../src/cli/replayCommand.js";
import { lookupFlag } from "../../src/experiment/configYaml.js";
import { runArgs } from "../../src/plan/runArgs.js";

const featureFlags = features.all().flatMap((f) => f.flags.map((flag) => flag.flag));
/** The plan sizes the fleet itself: a feature flag it sets or refuses (the autoscaler's) is not its flag. */
const planFlags = features
  .all()
  .flatMap((f) => f.flags.filter((flag) => !PLAN_OWN_KEYS.has(flag.key)).map((flag) => flag.flag));

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
    ["saturation", SATURATION_RUN_FLAGS, featureFlags],
  ];
  for (const [command, list, expected] of lists)
    for (const flag of expected)
      assert.ok(
        list.some((f) => f.flag === flag),
        `${command} lacks ${flag}`,
      );
  assert.ok(planFlags.includes("--speculative-config") && !planFlags.includes("--model-autoscaler-interval-us"));
  for (const flag of featureFlags) {
    const def = lookupFlag(flag.slice(2));
    assert.ok(typeof def !== "string", `plan files refuse ${flag}: ${String(def)}`);
  }
});

test("a point's command line carries feature options", () => {
  const args = runArgs({ model: "m", queueSnapshotAtUs: 5000, loraConfig: "a.yaml" } as Parameters<typeof runArgs>[0]);
  assert.deepEqual(args, ["--model", "m", "--lora-config", "a.yaml", "--queue-snapshot-at-us", "5000"]);
});
