// Small files with one job, functions that fit on a screen (docs/architecture.md "Layers"):
// no source file over 400 lines, no function over 80 lines outside the hot loop.

import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import ts from "typescript";

const SRC = path.resolve(import.meta.dirname, "..", "..", "..", "src");
const MAX_FILE_LINES = 400;
const MAX_FUNCTION_LINES = 80;
/** Hot-loop functions allowed to be longer, "file:name": splitting them would cost speed. */
const HOT_LOOP = new Set<string>([]);

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(p);
    return e.name.endsWith(".ts") ? [p] : [];
  });
}

const files = sourceFiles(SRC);

test(`no source file is longer than ${MAX_FILE_LINES} lines`, () => {
  const long = files
    .map((f) => ({ f: path.relative(SRC, f), n: fs.readFileSync(f, "utf8").split("\n").length - 1 }))
    .filter((x) => x.n > MAX_FILE_LINES)
    .map((x) => `${x.f}: ${x.n} lines`);
  assert.deepEqual(long, []);
});

test(`no function is longer than ${MAX_FUNCTION_LINES} lines outside the hot loop`, () => {
  const long: string[] = [];
  for (const file of files) {
    const sf = ts.createSourceFile(file, fs.readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
    const rel = path.relative(SRC, file);
    const visit = (n: ts.Node): void => {
      if (ts.isFunctionLike(n) && "body" in n && n.body !== undefined) {
        const first = sf.getLineAndCharacterOfPosition(n.getStart()).line;
        const last = sf.getLineAndCharacterOfPosition(n.getEnd()).line;
        const name = n.name !== undefined && ts.isIdentifier(n.name) ? n.name.text : "(anonymous)";
        if (last - first + 1 > MAX_FUNCTION_LINES && !HOT_LOOP.has(`${rel}:${name}`))
          long.push(`${rel}:${first + 1} ${name}: ${last - first + 1} lines`);
      }
      ts.forEachChild(n, visit);
    };
    visit(sf);
  }
  assert.deepEqual(long, []);
});
