// Positioned access to a YAML document for the search-space parser: every error is one line,
// `file:line:col: item: message`, raised as a SpaceError (a UserError: exit status 1).

import { isAlias, isMap, isScalar, isSeq, LineCounter, parseDocument, type Document, type Node, type Pair, type Scalar, type YAMLMap } from "yaml";
import { UserError } from "../util/errors.js";
import { didYouMean } from "../experiment/canonical.js";

/** An invalid search-space file (or a space that does not match the output directory): exit status 1. */
export class SpaceError extends UserError {
  constructor(message: string) {
    super(message);
    this.name = "SpaceError";
  }
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
  ) {
    this.doc = parseDocument(content, { lineCounter: this.lc, prettyErrors: false, uniqueKeys: true });
    if (this.doc.errors.length > 0) {
      const e = this.doc.errors[0]!;
      const pos = this.lc.linePos(e.pos[0]);
      const msg = e.message.split("\n")[0]!.replace(/ at line \d+, column \d+:?$/, "");
      throw new SpaceError(`${file}:${pos.line}:${pos.col}: YAML: ${msg}`);
    }
    if (this.doc.contents === null) throw new SpaceError(`${file}:1:1: space: the file is empty`);
  }

  get root(): Node {
    return this.doc.contents as Node;
  }

  /** 1-based line and column of a node (a missing node points at the document start). */
  where(node: Node | null | undefined): { line: number; col: number } {
    const off = node?.range?.[0] ?? 0;
    return this.lc.linePos(off);
  }

  fail(node: Node | null | undefined, item: string, msg: string): never {
    const { line, col } = this.where(node);
    throw new SpaceError(`${this.file}:${line}:${col}: ${item}: ${msg}`);
  }

  deref(node: Node | null | undefined): Node | null {
    if (node !== null && node !== undefined && isAlias(node)) return (node.resolve(this.doc) as Node | undefined) ?? null;
    return node ?? null;
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
      return { name: isScalar(key) ? String(key.value) : "", key, value: this.deref((pair.value as Node | null) ?? null) };
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

  scalar(node: Node | null, item: string): Scalar {
    if (node === null || !isScalar(node) || node.value === null) this.fail(node, item, "expected a single value");
    return node as Scalar;
  }

  /** The literal text of a scalar (numbers keep their spelling, e.g. `1e-5`). */
  text(node: Node | null, item: string): string {
    const s = this.scalar(node, item);
    const v = s.value;
    if (typeof v === "string") return v;
    if (typeof v === "number" || typeof v === "bigint") return s.source ?? String(v);
    if (typeof v === "boolean") return String(v);
    this.fail(node, item, "expected a single value");
  }

  str(node: Node | null, item: string): string {
    const t = this.text(node, item).trim();
    if (t === "") this.fail(node, item, "must not be empty");
    return t;
  }

  num(node: Node | null, item: string): number {
    const s = this.scalar(node, item);
    if (typeof s.value !== "number" || !Number.isFinite(s.value)) this.fail(node, item, `expected a finite number, got ${this.text(node, item)}`);
    return s.value;
  }

  int(node: Node | null, item: string, min: number): number {
    const v = this.num(node, item);
    if (!Number.isSafeInteger(v) || v < min) this.fail(node, item, `expected an integer >= ${min}, got ${this.text(node, item)}`);
    return v;
  }

  bool(node: Node | null, item: string): boolean {
    const s = this.scalar(node, item);
    if (typeof s.value !== "boolean") this.fail(node, item, "expected true or false");
    return s.value;
  }
}
