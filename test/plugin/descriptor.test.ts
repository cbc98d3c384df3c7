// Plugin descriptors in plain JavaScript (no zod): parameters as a plain object of defaults or none,
// set with --plugin-option; malformed descriptors end the run with one line naming file and field.

import { test } from "node:test";
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { cli } from "../helpers/cli.js";
import { coerce } from "../../src/plugin/descriptor.js";

const fixture = (f: string) => fileURLToPath(new URL(`../../../test/fixtures/plugins/${f}`, import.meta.url));
const PLAIN = fixture("plain-pinned-scorer.mjs");
const BASE = [
  "run",
  "--model",
  "meta-llama/llama-3.1-8b-instruct",
  "--num-requests",
  "30",
  "--rate",
  "20",
  "--num-instances",
  "3",
];
const ROUTED = [
  ...BASE,
  "--routing-policy",
  "weighted",
  "--trace-level",
  "decisions",
  "--summarize-trace",
  "--plugin",
  PLAIN,
];

/** The "Target Distribution" lines of the trace summary. */
function targets(stdout: string): string[] {
  const block = stdout.split("Target Distribution:\n")[1] ?? "";
  return block.split("\n").filter((l) => l.startsWith("  instance_"));
}

test("a plain-JS scorer is used, and its plain parameter set with --plugin-option changes where requests go", async () => {
  const byDefault = await cli([...ROUTED, "--routing-scorers", "pinned:1"]);
  assert.equal(byDefault.code, 0, byDefault.stderr.join("\n"));
  assert.deepEqual(targets(byDefault.stdout), ["  instance_0: 30"]);
  const moved = await cli([...ROUTED, "--routing-scorers", "pinned:1", "--plugin-option", "plain.instance=2"]);
  assert.equal(moved.code, 0, moved.stderr.join("\n"));
  assert.deepEqual(targets(moved.stdout), ["  instance_2: 30"]);
  // "false" is read as the boolean default's type: no preference, the tie goes to instance 0.
  const off = await cli([
    ...ROUTED,
    "--routing-scorers",
    "pinned:1",
    "--plugin-option",
    "plain.instance=2",
    "--plugin-option",
    "plain.enabled=false",
  ]);
  assert.equal(off.code, 0, off.stderr.join("\n"));
  assert.deepEqual(targets(off.stdout), ["  instance_0: 30"]);
});

test("a plain-JS descriptor without params runs", async () => {
  const r = await cli([...ROUTED, "--routing-scorers", "queue-depth:1,first:5"]);
  assert.equal(r.code, 0, r.stderr.join("\n"));
  assert.deepEqual(targets(r.stdout), ["  instance_0: 30"]);
});

test("a --plugin-option value that does not read as its default's type: one line naming plugin, option and type", async () => {
  const cases: [string, string][] = [
    [
      "plain.instance=abc",
      'error: plugin plain: --plugin-option plain.instance=abc: expected a number (scorer "pinned")',
    ],
    ["plain.instance=", 'error: plugin plain: --plugin-option plain.instance=: expected a number (scorer "pinned")'],
    [
      "plain.enabled=yes",
      'error: plugin plain: --plugin-option plain.enabled=yes: expected true or false (scorer "pinned")',
    ],
  ];
  for (const [option, line] of cases) {
    const r = await cli([...ROUTED, "--routing-scorers", "pinned:1", "--plugin-option", option]);
    assert.equal(r.code, 1, option);
    assert.equal(r.stdout, "", option);
    assert.deepEqual(r.stderr, [line]);
  }
});

test("a malformed descriptor ends the run with one line naming the file and the field, exit 1", async () => {
  const cases: [string, string][] = [
    ["malformed-no-name.mjs", 'scorer descriptor: "name" is missing or not a non-empty string'],
    ["malformed-no-create.mjs", 'scorer "lazy": "create" is missing or not a function'],
    [
      "malformed-params.mjs",
      'scorer "odd": "params" must be a zod object schema or a plain object of defaults, got an array',
    ],
    ["malformed-param-value.mjs", 'scorer "nested": "params.floor" must be a number, string or boolean, got an object'],
    ["malformed-flags.mjs", 'scorer "flagged": "flags" must be an array, got string'],
    ["malformed-flag-entry.mjs", 'scorer "flagged": "flags[0]" must be an object with a string "key" and "flag"'],
  ];
  for (const [file, what] of cases) {
    const r = await cli([...BASE, "--plugin", fixture(file)]);
    assert.equal(r.code, 1, file);
    assert.equal(r.stdout, "", file);
    assert.deepEqual(r.stderr, [`error: --plugin ${fixture(file)}: ${what}`]);
  }
});

test("option values are read as their default's type", () => {
  fc.assert(fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (n) => coerce(String(n), 0) === n));
  fc.assert(fc.property(fc.string(), (s) => coerce(s, "label") === s));
  assert.equal(coerce("true", false), true);
  assert.equal(coerce("false", true), false);
  assert.equal(coerce("1", true), null);
  assert.equal(coerce("Infinity", 1), null);
  assert.equal(coerce(" ", 1), null);
});
