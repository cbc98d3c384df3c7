// Positioned access to a YAML document for the files users write by hand (sweep plans, search
// spaces): every problem is one line, `file:line:col: item: message`, raised as the caller's
// error type.

import {
  isAlias,
  isMap,
  isScalar,
  isSeq,
  LineCounter,
  parseDocument,
  type Document,
  type Node,
  type Pair,
  type Scalar,
  type YAMLMap,
} from "yaml";
import { didYouMean } from "./didYouMean.js";

export interface YamlSourceOptions {
  /** Builds the error to throw from its one-line message. */
  error: (message: string) => Error;
  /** What the file is, for "the file is empty" (`plan`, `space`). */
  what: string;
  /** Integers become bigints (exact 64-bit values; see js()). */
  intAsBigInt?: boolean;
}

export interface Entry {
  key: Node;
  value: Node | null;
}

export class YamlSource {
  readonly doc: Document;
  private readonly lc = new LineCounter();

  constructor(
    readonly file: string,
    readonly content: string,
    private readonly opts: YamlSourceOptions,
  ) {
    this.doc = parseDocument(content, {
      // Warnings (e.g. a collection used as a key) would print a second stderr line; errors below say it.
      logLevel: "error",
      lineCounter: this.lc,
      prettyErrors: false,
      uniqueKeys: true,
      intAsBigInt: opts.intAsBigInt === true,
    });
    if (this.doc.errors.length > 0) {
      const e = this.doc.errors[0]!;
      const pos = this.lc.linePos(e.pos[0]);
      this.failAt(pos.line, pos.col, "YAML", e.message.split("\n")[0]!.replace(/ at line \d+, column \d+:?$/, ""));
    }
    if (this.doc.contents === null) this.failAt(1, 1, opts.what, "the file is empty");
  }

  get root(): Node {
    return this.doc.contents as Node;
  }

  /** 1-based line and column of a node or pair (a missing node points at the document start). */
  where(node: Node | Pair | null | undefined): { line: number; col: number } {
    const n = node as { range?: [number, number, number] | null; key?: unknown } | null | undefined;
    let off = 0;
    if (n?.range) off = n.range[0];
    else if (n && "key" in n && (n.key as Node | null)?.range) off = (n.key as Node).range![0];
    return this.lc.linePos(off);
  }

  fail(node: Node | Pair | null | undefined, item: string, msg: string): never {
    const { line, col } = this.where(node);
    this.failAt(line, col, item, msg);
  }

  failAt(line: number, col: number, item: string, msg: string): never {
    throw this.opts.error(`${this.file}:${line}:${col}: ${item}: ${msg}`);
  }

  deref(node: Node | null | undefined): Node | null {
    if (node !== null && node !== undefined && isAlias(node))
      return (node.resolve(this.doc) as Node | undefined) ?? null;
    return node ?? null;
  }

  /** Plain JS value of a node; bigints become numbers when they are safe integers. */
  js(node: Node | null): unknown {
    if (node === null) return null;
    return normalizeBigints(node.toJS(this.doc));
  }

  /** The entries of a mapping; keys outside `allowed` are errors (with a "did you mean"). */
  map(node: Node | null, item: string, allowed: readonly string[]): Map<string, Entry> {
    const n = this.deref(node);
    if (n === null || !isMap(n)) this.fail(n, item, "expected a mapping");
    const out = new Map<string, Entry>();
    for (const pair of (n as YAMLMap).items as Pair[]) {
      const key = pair.key as Node;
      const name = isScalar(key) ? String(key.value) : "";
      if (!allowed.includes(name)) {
        this.fail(key, item, `unknown key "${name}"${didYouMean(name, allowed)} (valid: ${allowed.join(", ")})`);
      }
      out.set(name, { key, value: this.deref((pair.value as Node | null) ?? null) });
    }
    return out;
  }

  /** Key/value pairs of a free-form mapping (flag maps). */
  pairs(node: Node | null, item: string, what: string): { name: string; key: Node; value: Node | null }[] {
    const n = this.deref(node);
    if (n === null || !isMap(n)) this.fail(n, item, `expected a mapping of ${what}`);
    return ((n as YAMLMap).items as Pair[]).map((pair) => {
      const key = pair.key as Node;
      return {
        name: isScalar(key) ? String(key.value) : "",
        key,
        value: this.deref((pair.value as Node | null) ?? null),
      };
    });
  }

  seq(node: Node | null, item: string): Node[] {
    const n = this.deref(node);
    if (n === null || !isSeq(n)) this.fail(n, item, "expected a list");
    return (n.items as (Node | null)[]).map((x) => this.deref(x) as Node);
  }

  isMap(node: Node | null): boolean {
    return node !== null && isMap(node);
  }

  isSeq(node: Node | null): boolean {
    return node !== null && isSeq(node);
  }

  /** A scalar node (its value may be null: `key:` or `~`). */
  scalar(node: Node | null, item: string): Scalar {
    if (node === null || !isScalar(node)) this.fail(node, item, "expected a single value");
    return node as Scalar;
  }

  /** The literal text of a non-null scalar (numbers keep their spelling, e.g. `1e-5`). */
  text(node: Node | null, item: string): string {
    const t = scalarText(this.scalar(node, item));
    if (t === null) this.fail(node, item, "expected a single value");
    return t;
  }

  str(node: Node | null, item: string): string {
    const t = this.text(node, item).trim();
    if (t === "") this.fail(node, item, "must not be empty");
    return t;
  }

  num(node: Node | null, item: string): number {
    const s = this.scalar(node, item);
    if (typeof s.value !== "number" || !Number.isFinite(s.value))
      this.fail(node, item, `expected a finite number, got ${this.text(node, item)}`);
    return s.value;
  }

  int(node: Node | null, item: string, min: number): number {
    const v = this.num(node, item);
    if (!Number.isSafeInteger(v) || v < min)
      this.fail(node, item, `expected an integer >= ${min}, got ${this.text(node, item)}`);
    return v;
  }

  bool(node: Node | null, item: string): boolean {
    const s = this.scalar(node, item);
    if (typeof s.value !== "boolean") this.fail(node, item, "expected true or false");
    return s.value;
  }
}

/** The literal text of a scalar (numbers keep their source spelling, e.g. `1.0`); null for null. */
export function scalarText(s: Scalar): string | null {
  const v = s.value;
  if (typeof v === "string") return v;
  if (typeof v === "number" || typeof v === "bigint") return s.source ?? String(v);
  if (typeof v === "boolean") return String(v);
  return null;
}

function normalizeBigints(v: unknown): unknown {
  if (typeof v === "bigint")
    return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v;
  if (Array.isArray(v)) return v.map(normalizeBigints);
  if (v !== null && typeof v === "object") {
    const o: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) o[k] = normalizeBigints(x);
    return o;
  }
  return v;
}
