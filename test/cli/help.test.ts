// Every command's --help prints its usage and exits 0 (a bigint default once crashed it).

import { test } from "node:test";
import assert from "node:assert/strict";
import { cli } from "../helpers/cli.js";

const COMMANDS = [
  [],
  ["run"],
  ["convert"],
  ["convert", "preset"],
  ["convert", "csv-trace"],
  ["convert", "servegen"],
  ["convert", "inference-perf"],
  ["convert", "scenario"],
  ["compose"],
  ["sweep"],
  ["optimize"],
  ["plan"],
  ["report"],
  ["models"],
  ["replay"],
  ["calibrate"],
  ["fit"],
  ["observe"],
  ["goodput"],
];

test("--help of every command prints its usage and exits 0", async () => {
  for (const cmd of COMMANDS) {
    const r = await cli([...cmd, "--help"]);
    const what = ["blis", ...cmd, "--help"].join(" ");
    assert.equal(r.code, 0, `${what}: exit ${r.code}, stderr ${r.stderr.join(" | ")}`);
    assert.match(r.stdout, new RegExp(`Usage: blis ${cmd.join(" ")}`.trimEnd()), what);
    assert.deepEqual(r.stderr, [], what);
  }
});

test("convert scenario --help shows the seed's default", async () => {
  const r = await cli(["convert", "scenario", "--help"]);
  assert.match(r.stdout, /--seed <seed>\s+workload seed written into the spec \(default: 42\)/);
});

test("blis --version prints the package version", async () => {
  const r = await cli(["--version"]);
  assert.equal(r.code, 0);
  assert.match(r.stdout, /^\d+\.\d+\.\d+\n$/);
});

test("run --help names the value of --plugin-option", async () => {
  const r = await cli(["run", "--help"]);
  assert.match(r.stdout, /--plugin-option <plugin\.key=value>/);
  assert.match(r.stdout, /--plugin <path>/);
});

test("blis help names nested commands", async () => {
  const r = await cli(["help", "convert", "scenario"]);
  assert.equal(r.code, 0);
  assert.match(r.stdout, /^Usage: blis convert scenario /);
  const top = await cli(["help", "run"]);
  assert.match(top.stdout, /^Usage: blis run /);
});
