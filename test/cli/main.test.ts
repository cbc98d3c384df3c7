// Extra arguments are named in the error line instead of commander's "too many arguments".

import { test } from "node:test";
import assert from "node:assert/strict";
import { cli } from "../helpers/cli.js";

test("an extra argument is named: a stray '-', flags after '--', a second plan", async () => {
  const cases: [string[], string][] = [
    [["run", "--model", "x", "-"], 'error: unexpected argument "-": blis run takes no arguments, only flags'],
    [["run", "--rate", "1", "--", "--rate", "1"], 'error: unexpected argument "--rate": blis run takes no arguments, only flags'],
    [["run", "--model", "x", ""], 'error: unexpected empty argument "": blis run takes no arguments, only flags'],
    [["sweep", "a.yaml", "b.yaml"], 'error: unexpected argument "b.yaml": blis sweep takes at most 1 argument'],
    [["convert", "preset", "x", "--name", "chatbot"], 'error: unexpected argument "x": blis convert preset takes no arguments, only flags'],
  ];
  for (const [argv, line] of cases) {
    const r = await cli(argv);
    assert.equal(r.code, 1, argv.join(" "));
    assert.deepEqual(r.stderr, [line], argv.join(" "));
    assert.equal(r.stdout, "");
  }
});
