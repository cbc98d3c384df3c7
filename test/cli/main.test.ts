// Extra arguments are named in the error line instead of commander's "too many arguments".

import { test } from "node:test";
import assert from "node:assert/strict";
import { cli } from "../helpers/cli.js";
import { buildProgram, COMMANDS } from "../../src/cli/main.js";

test("an extra argument is named: a stray '-', flags after '--', a second plan", async () => {
  const cases: [string[], string][] = [
    [["run", "--model", "x", "-"], 'error: unexpected argument "-": blis run takes no arguments, only flags'],
    [
      ["run", "--rate", "1", "--", "--rate", "1"],
      'error: unexpected argument "--rate": blis run takes no arguments, only flags',
    ],
    [["run", "--model", "x", ""], 'error: unexpected empty argument "": blis run takes no arguments, only flags'],
    [["sweep", "a.yaml", "b.yaml"], 'error: unexpected argument "b.yaml": blis sweep takes at most 1 argument'],
    [
      ["convert", "preset", "x", "--name", "chatbot"],
      'error: unexpected argument "x": blis convert preset takes no arguments, only flags',
    ],
  ];
  for (const [argv, line] of cases) {
    const r = await cli(argv);
    assert.equal(r.code, 1, argv.join(" "));
    assert.deepEqual(r.stderr, [line], argv.join(" "));
    assert.equal(r.stdout, "");
  }
});

test("each command's registrar adds exactly the commands listed for it, in the full program's order", () => {
  const io = { stdout: () => undefined, stderrLine: () => undefined };
  const all = buildProgram(io).commands.map((c) => c.name());
  assert.deepEqual(
    all,
    COMMANDS.flatMap(([names]) => names),
  );
  for (const [names] of COMMANDS) {
    assert.deepEqual(
      buildProgram(io, names[0]).commands.map((c) => c.name()),
      names,
    );
  }
});

test("a command's help reads the same from the program holding only that command", () => {
  const io = { stdout: () => undefined, stderrLine: () => undefined };
  for (const name of ["run", "replay", "sweep", "convert"]) {
    const help = (p: ReturnType<typeof buildProgram>): string =>
      p.commands.find((c) => c.name() === name)!.helpInformation();
    assert.equal(help(buildProgram(io, name)), help(buildProgram(io)), name);
  }
});

test("-V is the version only before a command: after one it is a flag's value or an unknown option", async () => {
  const version = await cli(["-V"]);
  assert.equal(version.code, 0);
  assert.match(version.stdout, /^\d+\.\d+\.\d+\n$/);
  const asValue = await cli([
    "run",
    "--model",
    "meta-llama/llama-3.1-8b-instruct",
    "--num-requests",
    "1",
    "--routing-tie-break",
    "-V",
  ]);
  assert.equal(asValue.code, 1);
  assert.deepEqual(asValue.stderr, ['error: --routing-tie-break must be "first" or "random", got "-V"']);
  assert.equal(asValue.stdout, "");
  const alone = await cli(["run", "-V"]);
  assert.equal(alone.code, 1);
  assert.deepEqual(alone.stderr, ["error: unknown option '-V'"]);
});
