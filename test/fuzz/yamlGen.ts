// YAML files for the fuzz test: a well-formed document built from a schema-shaped value, then
// optionally made wrong (values of the wrong type or range, unknown keys, missing keys) and
// optionally broken as text (truncated, stray characters, duplicated lines, alias bombs).

import fc from "fast-check";
import { stringify } from "yaml";

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** Values that are wrong almost anywhere: other types, out of range, not finite, absurd sizes. */
export const WRONG_VALUES: readonly Json[] = [
  NaN,
  Infinity,
  -Infinity,
  -1,
  0,
  0.5,
  -0.5,
  1e300,
  -1e300,
  2 ** 63,
  2 ** 53 + 2,
  2147483648,
  "",
  "abc",
  "1e3",
  "-",
  true,
  false,
  null,
  [],
  {},
  [1, 2],
  { a: 1 },
  "x".repeat(300),
];

type Mutation =
  | { at: number; op: "set"; value: Json }
  | { at: number; op: "delete" }
  | { at: number; op: "add"; key: string; value: Json };

const mutationArb = (keyPool: readonly string[]): fc.Arbitrary<Mutation> =>
  fc.oneof(
    {
      weight: 5,
      arbitrary: fc.record({ at: fc.nat(), op: fc.constant("set" as const), value: fc.constantFrom(...WRONG_VALUES) }),
    },
    { weight: 2, arbitrary: fc.record({ at: fc.nat(), op: fc.constant("delete" as const) }) },
    {
      weight: 2,
      arbitrary: fc.record({
        at: fc.nat(),
        op: fc.constant("add" as const),
        key: fc.oneof(
          fc.constantFrom(...keyPool, "bogus", "Version", "rate", ""),
          fc.string({ minLength: 1, maxLength: 6 }),
        ),
        value: fc.constantFrom(...WRONG_VALUES, 1, "x"),
      }),
    },
  );

type Path = (string | number)[];

function containers(v: Json, at: Path, out: { path: Path; node: Json }[]): void {
  if (v === null || typeof v !== "object") return;
  out.push({ path: at, node: v });
  if (Array.isArray(v)) v.forEach((x, i) => containers(x, [...at, i], out));
  else for (const [k, x] of Object.entries(v)) containers(x, [...at, k], out);
}

function leaves(v: Json, at: Path, out: Path[]): void {
  if (at.length > 0) out.push(at);
  if (v === null || typeof v !== "object") return;
  if (Array.isArray(v)) v.forEach((x, i) => leaves(x, [...at, i], out));
  else for (const [k, x] of Object.entries(v)) leaves(x, [...at, k], out);
}

function parentOf(root: Json, p: Path): Json {
  let node = root;
  for (const seg of p.slice(0, -1)) node = (node as Record<string | number, Json>)[seg]!;
  return node;
}

/** Applies a mutation to a deep copy of `root`; picks its target by `at` modulo the candidates. */
function mutate(root: Json, m: Mutation): Json {
  const copy = structuredClone(root);
  if (m.op === "add") {
    const objs: { path: Path; node: Json }[] = [];
    containers(copy, [], objs);
    const maps = objs.filter((o) => !Array.isArray(o.node));
    if (maps.length === 0) return copy;
    (maps[m.at % maps.length]!.node as Record<string, Json>)[m.key] = m.value;
    return copy;
  }
  const paths: Path[] = [];
  leaves(copy, [], paths);
  if (paths.length === 0) return copy;
  const p = paths[m.at % paths.length]!;
  const parent = parentOf(copy, p) as Record<string | number, Json> & Json[];
  const last = p[p.length - 1]!;
  if (m.op === "set") parent[last] = m.value;
  else if (Array.isArray(parent)) parent.splice(last as number, 1);
  else delete parent[last];
  return copy;
}

type Breakage =
  | { pos: number; op: "truncate" }
  | { pos: number; op: "insert"; text: string }
  | { pos: number; op: "dupLine" }
  | { op: "replace"; text: string };

const ALIAS_BOMB = [
  "a: &a [x, x, x, x, x, x, x, x, x, x]",
  ...["b", "c", "d", "e", "f", "g"].map((k, i) => `${k}: &${k} [${Array(10).fill(`*${"abcdef"[i]}`).join(", ")}]`),
].join("\n");

const breakageArb: fc.Arbitrary<Breakage> = fc.oneof(
  fc.record({ pos: fc.nat(), op: fc.constant("truncate" as const) }),
  fc.record({
    pos: fc.nat(),
    op: fc.constant("insert" as const),
    text: fc.constantFrom(
      ":",
      ": ",
      "- ",
      "[",
      "{",
      "}",
      "\t",
      '"',
      "'",
      "&a ",
      "*a ",
      "*nope ",
      "!!binary ",
      "---\n",
      "\n  x",
      "\n- y\n",
      "? ",
      "#",
      "%YAML 1.2\n",
      "\u0000",
      "\uFEFF",
      ": :",
    ),
  }),
  fc.record({ pos: fc.nat(), op: fc.constant("dupLine" as const) }),
  fc.record({
    op: fc.constant("replace" as const),
    text: fc.constantFrom(
      "",
      "~",
      "[]",
      "42",
      "'x'",
      "a: [",
      "a: b: c",
      "- - -",
      "---\n---\n",
      "x: 1\n---\ny: 2\n",
      "\uFEFF",
      "\u0000\u0001",
      ALIAS_BOMB,
      "{}",
      "null",
    ),
  }),
);

function breakText(text: string, b: Breakage): string {
  if (b.op === "replace") return b.text;
  const pos = b.pos % (text.length + 1);
  if (b.op === "truncate") return text.slice(0, pos);
  if (b.op === "insert") return text.slice(0, pos) + b.text + text.slice(pos);
  const lines = text.split("\n");
  const i = b.pos % lines.length;
  lines.splice(i, 0, lines[i]!);
  return lines.join("\n");
}

function keysOf(v: Json, out: Set<string>): Set<string> {
  if (v !== null && typeof v === "object") {
    if (Array.isArray(v)) v.forEach((x) => keysOf(x, out));
    else
      for (const [k, x] of Object.entries(v)) {
        out.add(k);
        keysOf(x, out);
      }
  }
  return out;
}

export interface YamlFile {
  text: string;
  /** Every key of the document before and after the mutations. */
  keys: string[];
}

export interface YamlMix {
  /** Weights of: unchanged, wrong values (1-3 mutations), broken text. */
  clean: number;
  wrong: number;
  broken: number;
}

/** The YAML text of `value`, unchanged, with wrong values, or broken, by the given weights. */
export function yamlFile(value: fc.Arbitrary<Json>, mix: YamlMix): fc.Arbitrary<YamlFile> {
  const keyPool = ["id", "type", "name", "value", "values", "flags", "params", "policy"];
  return fc
    .tuple(
      value,
      fc.oneof(
        { weight: mix.clean, arbitrary: fc.constant({ muts: [] as Mutation[], brk: null as Breakage | null }) },
        {
          weight: mix.wrong,
          arbitrary: fc.record({
            muts: fc.array(mutationArb(keyPool), { minLength: 1, maxLength: 3 }),
            brk: fc.constant(null),
          }),
        },
        { weight: mix.broken, arbitrary: fc.record({ muts: fc.constant([] as Mutation[]), brk: breakageArb }) },
      ),
    )
    .map(([v, { muts, brk }]) => {
      const mutated = muts.reduce(mutate, v);
      const keys = keysOf(mutated, keysOf(v, new Set()));
      let text = stringify(mutated, { lineWidth: 0 });
      if (brk !== null) text = breakText(text, brk);
      return { text, keys: [...keys] };
    });
}

/** `text` broken by one edit (truncated, stray characters, a duplicated line, or replaced). */
export function brokenText(text: string): fc.Arbitrary<string> {
  return breakageArb.map((b) => breakText(text, b));
}
