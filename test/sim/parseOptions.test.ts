// Stage 1 of the configuration pipeline (src/sim/parseOptions.ts): run input → options with
// defaults, the explicit keys and the logger.
import { test } from "node:test";
import assert from "node:assert/strict";
import { flagName, parseRunInput } from "../../src/sim/parseOptions.js";
import { Logger, silentLogger } from "../../src/util/log.js";
import type { RunInput } from "../../src/config/runOptions.js";
import { cliError, userError } from "./helpers.js";

test("parseRunInput fills schema defaults and lower-cases the model", () => {
  const { o } = parseRunInput({ model: "Qwen/Qwen3-14B" }, silentLogger);
  assert.equal(o.model, "qwen/qwen3-14b");
  assert.equal(o.numInstances, 1);
  assert.equal(o.routingPolicy, "round-robin");
  assert.equal(o.tokenBucketCapacity, 10000);
  assert.equal(o.horizon, Infinity);
});

test("parseRunInput marks exactly the keys given with a value as explicit", () => {
  const { explicit } = parseRunInput({ model: "m", seed: 7, numRequests: undefined }, silentLogger);
  assert.deepEqual([...explicit].sort(), ["model", "seed"]);
});

test("parseRunInput does not change its input", () => {
  const input: RunInput = { model: "UPPER" };
  parseRunInput(input, silentLogger);
  assert.deepEqual(input, { model: "UPPER" });
});

test("parseRunInput: the logger is the caller's, else silent unless a log level is given", () => {
  const mine = new Logger("debug", () => undefined);
  assert.equal(parseRunInput({ model: "m" }, mine).log, mine);
  assert.equal(parseRunInput({ model: "m" }, undefined).log, silentLogger);
  const chosen = parseRunInput({ model: "m", log: "Warning" }, undefined).log;
  assert.notEqual(chosen, silentLogger);
  assert.equal(chosen.level, "warn");
});

test("parseRunInput rejects a missing model, a bad log level and unknown or mistyped keys", async () => {
  assert.equal(
    userError(() => parseRunInput({}, silentLogger)),
    "LLM name not provided (--model). Exiting simulation.",
  );
  assert.equal(
    userError(() => parseRunInput({ model: "m", log: "loud" }, silentLogger)),
    "Invalid log level: loud",
  );
  assert.equal(
    userError(() => parseRunInput({ model: "m", log: "loud" }, silentLogger)),
    await cliError(["--log", "loud"]),
  );
  const unknown = { model: "m", numInstancez: 2 } as unknown as RunInput;
  assert.equal(
    userError(() => parseRunInput(unknown, silentLogger)),
    "invalid run option --num-instancez: unknown option",
  );
  assert.match(
    userError(() => parseRunInput({ model: "m", numInstances: 1.5 }, silentLogger)),
    /^invalid run option --num-instances: /,
  );
});

test("flagName turns an option key into its flag", () => {
  assert.equal(flagName("maxNumRunningReqs"), "--max-num-running-reqs");
  assert.equal(flagName("tp"), "--tp");
});
