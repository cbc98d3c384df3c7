// The worked example of docs/extending.md "Adding a feature" quotes real code: every TypeScript
// block of the section names its file on its first line (`// src/...`) and appears there verbatim,
// leading indentation aside, so the example cannot drift from code that builds and runs.

import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";

const ROOT = path.resolve(import.meta.dirname, "..", "..", "..");
const DOC = "docs/extending.md";

/** The text of the section headed `## <title>`, up to the next `## ` heading. */
function section(text: string, title: string): string {
  const start = text.indexOf(`\n## ${title}\n`);
  assert.ok(start >= 0, `${DOC} has a section "${title}"`);
  const end = text.indexOf("\n## ", start + 1);
  return text.slice(start, end < 0 ? undefined : end);
}

interface Quote {
  file: string;
  lines: string[];
}

/** The section's ```ts blocks: the file named by the first line and the lines after it. */
function quotes(text: string): Quote[] {
  return [...text.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => {
    const [first, ...lines] = (m[1] ?? "").replace(/\n$/, "").split("\n");
    const named = /^\/\/ (\S+\.ts)$/.exec(first ?? "");
    assert.ok(named !== null, `a TypeScript block of ${DOC} starts with "// <file>": ${first}`);
    return { file: named[1]!, lines };
  });
}

/** Whether `lines` occur as consecutive lines of `text`, each compared without leading whitespace. */
function quotedIn(text: string, lines: readonly string[]): boolean {
  const have = text.split("\n").map((l) => l.trimStart());
  const want = lines.map((l) => l.trimStart());
  for (let i = 0; i + want.length <= have.length; i++) {
    if (want.every((w, k) => have[i + k] === w)) return true;
  }
  return false;
}

const example = section(fs.readFileSync(path.join(ROOT, DOC), "utf8"), "Adding a feature");

test("the worked example walks through the descriptor, the extension, the registration and the tests", () => {
  const files = new Set(quotes(example).map((q) => q.file));
  for (const f of [
    "src/features/queueSnapshot/queueSnapshot.ts",
    "src/features/queueSnapshot/extension.ts",
    "src/features/builtins.ts",
    "test/features/queueSnapshot.test.ts",
  ]) {
    assert.ok(files.has(f), `the example quotes ${f}`);
  }
});

test("every TypeScript block of the example appears verbatim in the file it names", () => {
  for (const q of quotes(example)) {
    assert.ok(q.lines.length > 0, `an empty block quoting ${q.file}`);
    const file = path.join(ROOT, q.file);
    assert.ok(fs.existsSync(file), `${q.file} exists`);
    assert.ok(
      quotedIn(fs.readFileSync(file, "utf8"), q.lines),
      `${DOC} quotes ${q.file} as it is:\n${q.lines.join("\n")}`,
    );
  }
});

test("a block that differs from its file by one character is caught", () => {
  const [q] = quotes(example);
  const text = fs.readFileSync(path.join(ROOT, q!.file), "utf8");
  const changed = q!.lines.map((l, k) => (k === q!.lines.length - 1 ? l + " " : l));
  assert.equal(quotedIn(text, changed), false);
  assert.equal(quotedIn(text, q!.lines), true);
});
