// The layer order of src/ (docs/architecture.md "Layers"): a folder imports only from its own
// layer or lower ones, so the simulator core never depends on the command line or the reports.

import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";

const SRC = path.resolve(import.meta.dirname, "..", "..", "..", "src");

/** Lowest first. Folders of one layer may import each other (dependency-cruiser in `npm run lint` rules out cycles). */
const LAYERS: readonly (readonly string[])[] = [
  ["util"],
  ["engine"],
  ["core"],
  ["kv", "latency", "policy", "workload", "lora", "speculative"],
  ["instance", "infra"],
  ["cluster", "gateway", "trace", "autoscale", "pd"],
  ["metrics", "config", "plugin", "saturation"],
  ["sim"],
  ["experiment", "optimize", "report", "calibration", "observe", "queue", "plan"],
  ["cli"],
];

const rankOf = new Map<string, number>(LAYERS.flatMap((names, i) => names.map((n) => [n, i] as [string, number])));

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(p);
    return e.name.endsWith(".ts") ? [p] : [];
  });
}

const folderOf = (file: string): string => path.relative(SRC, file).split(path.sep)[0]!;

test("every folder of src/ has a layer", () => {
  const folders = fs
    .readdirSync(SRC, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name);
  assert.deepEqual(
    folders.filter((f) => !rankOf.has(f)),
    [],
  );
});

test("no folder imports from a higher layer", () => {
  const wrong: string[] = [];
  for (const file of sourceFiles(SRC)) {
    const from = folderOf(file);
    const rank = rankOf.get(from);
    if (rank === undefined) continue; // the package entry point (src/index.ts) sits above all
    const text = fs.readFileSync(file, "utf8");
    // Static imports and re-exports, type-only ones included, and dynamic import("...").
    for (const m of text.matchAll(/(?:from\s+|import\s*\(\s*)"(\.{1,2}\/[^"]+)"/g)) {
      const target = folderOf(path.resolve(path.dirname(file), m[1]!));
      const to = rankOf.get(target);
      if (to !== undefined && to > rank) wrong.push(`${path.relative(SRC, file)} imports ${m[1]} (${from} below ${target})`);
    }
  }
  assert.deepEqual(wrong, []);
});
