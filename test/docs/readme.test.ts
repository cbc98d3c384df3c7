// The README's two quick-start commands are the ones CI runs: the test command in .ci/run is the
// README's, and the first command installs and runs a simulation.

import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";

const ROOT = path.resolve(import.meta.dirname, "..", "..", "..");

function quickStartCommands(): string[] {
  const readme = fs.readFileSync(path.join(ROOT, "README.md"), "utf8");
  const start = readme.indexOf("## Quick start");
  assert.ok(start >= 0, "README has a Quick start section");
  const blocks = [...readme.slice(start).matchAll(/```sh\n([^`]*)```/g)].map((m) => (m[1] ?? "").trim());
  return blocks.slice(0, 2);
}

test("the README's first command installs and runs a simulation with the bundled defaults", () => {
  const [install] = quickStartCommands();
  assert.match(install ?? "", /^npm ci && npx blis run --model \S+$/);
});

test("CI runs the README's test command, which needs nothing installed beforehand", () => {
  const [, tests] = quickStartCommands();
  assert.equal(tests, "npm test");
  const ci = fs
    .readFileSync(path.join(ROOT, ".ci", "run"), "utf8")
    .trim()
    .split("\n");
  assert.equal(ci.at(-1), tests);
  assert.ok(ci.includes("npm ci --no-audit --no-fund"), ".ci/run installs from scratch");
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as {
    scripts: Record<string, string>;
  };
  assert.match(pkg.scripts["test"] ?? "", /node scripts\/ensureBrowser\.mjs/);
});
