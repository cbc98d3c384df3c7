// Every pointer from code into docs/ resolves: `docs/NAME.md "Heading"` names an existing heading,
// `docs/NAME.md#id` an existing anchor; and no comment cites documents outside the repository.

import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";

const ROOT = path.resolve(import.meta.dirname, "..", "..", "..");

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(p);
    return e.name.endsWith(".ts") ? [p] : [];
  });
}

const slug = (heading: string): string =>
  heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s-]/gu, "")
    .trim()
    .replace(/\s/g, "-");

function docIndex(file: string): { headings: Set<string>; anchors: Set<string> } {
  const text = fs.readFileSync(file, "utf8");
  const headings = new Set<string>();
  const anchors = new Set<string>();
  for (const m of text.matchAll(/^#+\s+(.+?)\s*$/gm)) {
    headings.add(m[1]!.replace(/`/g, ""));
    anchors.add(slug(m[1]!));
  }
  for (const m of text.matchAll(/<a id="([^"]+)"><\/a>/g)) anchors.add(m[1]!);
  return { headings, anchors };
}

const files = [...sourceFiles(path.join(ROOT, "src")), ...sourceFiles(path.join(ROOT, "test"))];
const docs = new Map<string, ReturnType<typeof docIndex>>();
const docOf = (name: string): ReturnType<typeof docIndex> | undefined => {
  const file = path.join(ROOT, "docs", name);
  if (!fs.existsSync(file)) return undefined;
  if (!docs.has(name)) docs.set(name, docIndex(file));
  return docs.get(name);
};

test("docs/ pointers in the code name existing headings and anchors", () => {
  const broken: string[] = [];
  let checked = 0;
  for (const f of files) {
    const text = fs.readFileSync(f, "utf8");
    const where = path.relative(ROOT, f);
    for (const m of text.matchAll(/docs\/([a-z-]+\.md)(?: "([^"\n]+)"|#([a-z0-9-]+))?/g)) {
      const d = docOf(m[1]!);
      checked++;
      if (d === undefined) broken.push(`${where}: docs/${m[1]} does not exist`);
      else if (m[2] !== undefined && !d.headings.has(m[2].replace(/`/g, "")))
        broken.push(`${where}: docs/${m[1]} has no heading "${m[2]}"`);
      else if (m[3] !== undefined && !d.anchors.has(m[3])) broken.push(`${where}: docs/${m[1]} has no anchor #${m[3]}`);
    }
  }
  assert.ok(checked > 100, `only ${checked} pointers found`);
  assert.deepEqual(broken, []);
});

test("no comment cites the specification documents outside the repository", () => {
  const outside = /\b(engine|cluster|workload|latency-v2|disaggregation|control-plane)\.md\b|§/;
  const self = path.join("test", "docs", "citations.test.ts");
  const hits = files
    .filter((f) => !f.endsWith(self) && outside.test(fs.readFileSync(f, "utf8")))
    .map((f) => path.relative(ROOT, f));
  assert.deepEqual(hits, []);
});
