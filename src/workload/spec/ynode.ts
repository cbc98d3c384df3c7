// A neutral document tree ("YNode") that both YAML files and in-memory objects convert to,
// so one strict decoder serves `--workload-spec` files and programmatic specs alike.
// YAML scalars keep their literal text (a number where a string is expected becomes its text)
// and every node keeps its line/column. Alias expansion is budgeted (alias bombs, cycles).

import {
  type Alias,
  isAlias,
  isMap,
  isPair,
  isScalar,
  isSeq,
  LineCounter,
  parseAllDocuments,
  type Document,
  type Node as YamlNode,
  type Pair,
  type Scalar,
  type YAMLMap,
} from "yaml";

export interface Pos {
  line: number;
  col: number;
}

export type ScalarTag = "null" | "bool" | "int" | "float" | "str";

export interface YScalar {
  readonly k: "scalar";
  readonly tag: ScalarTag;
  readonly value: null | boolean | bigint | number | string;
  /** Literal source text (for plain YAML scalars) or the string form of the value. */
  readonly text: string;
  readonly pos: Pos | null;
  /** Set on nodes that carry a YAML anchor (they may be revisited through aliases). */
  anchored?: boolean;
}
export interface YEntry {
  readonly key: string;
  readonly keyPos: Pos | null;
  readonly value: YNode;
}
export interface YMap {
  readonly k: "map";
  readonly entries: YEntry[];
  readonly pos: Pos | null;
  anchored?: boolean;
}
export interface YSeq {
  readonly k: "seq";
  readonly items: YNode[];
  readonly pos: Pos | null;
  anchored?: boolean;
}
export type YNode = YScalar | YMap | YSeq;

/** A problem with the document itself (syntax, aliases, size); carries a position when known. */
export class DocumentError extends Error {
  constructor(
    readonly detail: string,
    readonly pos: Pos | null,
  ) {
    super(detail);
  }
}

/** Values accepted from an in-memory object before we give up. */
const MAX_EXPANDED_NODES = 1_000_000;
/** Deeper than any valid spec; guards recursion on adversarial input. */
const MAX_DEPTH = 64;

export function nullNode(pos: Pos | null): YScalar {
  return { k: "scalar", tag: "null", value: null, text: "", pos };
}

/**
 * Parses the first YAML document of `text`. Returns null for an empty stream (no document or
 * a document without content).
 */
export function parseFirstYamlDocument(text: string, opts: { uniqueKeys?: boolean } = {}): YNode | null {
  const lineCounter = new LineCounter();
  let docs: Document.Parsed[];
  try {
    const parsed = parseAllDocuments(text, {
      lineCounter,
      intAsBigInt: true,
      prettyErrors: false,
      uniqueKeys: opts.uniqueKeys ?? true,
      keepSourceTokens: false,
    });
    docs = Array.isArray(parsed) ? parsed : [];
  } catch (err) {
    // The parser can throw on pathological input (e.g. extreme nesting): report, never crash.
    throw new DocumentError(err instanceof Error ? err.message.split("\n")[0]! : String(err), null);
  }
  const doc = docs[0];
  if (doc === undefined) return null;
  const firstError = doc.errors[0];
  if (firstError !== undefined) {
    const lp = lineCounter.linePos(firstError.pos[0]);
    throw new DocumentError(firstError.message.split("\n")[0]!, { line: lp.line, col: lp.col });
  }
  if (doc.contents === null) return null;
  const conv = new YamlConverter(lineCounter);
  const root = conv.convert(doc.contents, 0, 0);
  if (root.k === "scalar" && root.tag === "null") return null;
  return root;
}

class YamlConverter {
  /**
   * Anchors seen so far in document order (an alias refers to the latest definition before
   * it). Kept here because Alias.resolve walks the whole document on every call.
   */
  private readonly anchors = new Map<string, unknown>();
  /**
   * Aliased nodes are converted once and shared (YNodes are immutable), so an alias bomb stays
   * a small DAG here; the decoder bounds the work of walking it.
   */
  private readonly shared = new Map<unknown, YNode>();
  constructor(private readonly lines: LineCounter) {}

  private pos(node: { range?: readonly number[] | null | undefined }): Pos | null {
    const start = node.range?.[0];
    if (start === undefined) return null;
    const lp = this.lines.linePos(start);
    return { line: lp.line, col: lp.col };
  }

  convert(node: unknown, depth: number, aliasDepth: number): YNode {
    const out = this.convertInner(node, depth, aliasDepth);
    if (typeof (node as { anchor?: unknown } | null)?.anchor === "string") out.anchored = true;
    return out;
  }

  private convertInner(node: unknown, depth: number, aliasDepth: number): YNode {
    if (depth > MAX_DEPTH) throw new DocumentError(`nesting deeper than ${MAX_DEPTH} levels (cyclic anchor?)`, null);
    if (isAlias(node)) return this.convertAlias(node, depth, aliasDepth);
    const anchor = (node as { anchor?: unknown } | null)?.anchor;
    if (aliasDepth === 0 && typeof anchor === "string") this.anchors.set(anchor, node);
    if (isScalar(node)) return scalarNode(node, this.pos(node));
    if (isSeq(node)) {
      const items = node.items.map((item) => this.convert(item, depth + 1, aliasDepth));
      return { k: "seq", items, pos: this.pos(node) };
    }
    if (isMap(node)) return this.convertMap(node, depth, aliasDepth);
    throw new DocumentError("unsupported YAML node", null);
  }

  /** The anchored node, converted once and then shared by every alias of it. */
  private convertAlias(node: Alias, depth: number, aliasDepth: number): YNode {
    const target = this.anchors.get(node.source);
    if (target === undefined) {
      throw new DocumentError(`unknown anchor "${node.source}" referenced`, this.pos(node));
    }
    const done = this.shared.get(target);
    if (done !== undefined) return done;
    const converted = this.convert(target, depth + 1, aliasDepth + 1);
    this.shared.set(target, converted);
    return converted;
  }

  /** A mapping; entries merged in with `<<` come after its own and never replace them. */
  private convertMap(node: YAMLMap, depth: number, aliasDepth: number): YNode {
    const entries: YEntry[] = [];
    const merged: YEntry[] = [];
    for (const pair of node.items) {
      if (!isPair(pair)) continue;
      const keyNode = pair.key as YamlNode | null;
      const keyPos = keyNode && typeof keyNode === "object" ? this.pos(keyNode) : null;
      if (!isScalar(keyNode)) {
        throw new DocumentError("mapping keys must be scalars", keyPos);
      }
      const key = mapKeyText(keyNode);
      const valueNode = this.convertValueOf(pair, keyPos, depth, aliasDepth);
      if (key === "<<" && keyNode.type === "PLAIN") {
        // YAML 1.1 merge key (supported by the reference's YAML library).
        for (const e of mergedEntries(valueNode, keyPos)) merged.push(e);
        continue;
      }
      entries.push({ key, keyPos, value: valueNode });
    }
    for (const m of merged) {
      if (!entries.some((e) => e.key === m.key)) entries.push(m);
    }
    return { k: "map", entries, pos: this.pos(node) };
  }

  /** A pair's value; a missing one is null at the key's position. */
  private convertValueOf(pair: Pair, keyPos: Pos | null, depth: number, aliasDepth: number): YNode {
    return pair.value === null || pair.value === undefined
      ? nullNode(keyPos)
      : this.convert(pair.value, depth + 1, aliasDepth);
  }
}

/** A YAML scalar with its tag; plain scalars keep their literal text. */
function scalarNode(node: Scalar, pos: Pos | null): YNode {
  const v = node.value;
  const source = typeof node.source === "string" && node.type === "PLAIN" ? node.source : undefined;
  if (v === null || v === undefined) return nullNode(pos);
  if (typeof v === "boolean") return { k: "scalar", tag: "bool", value: v, text: source ?? String(v), pos };
  if (typeof v === "bigint") return { k: "scalar", tag: "int", value: v, text: source ?? v.toString(), pos };
  if (typeof v === "number") return { k: "scalar", tag: "float", value: v, text: source ?? String(v), pos };
  if (typeof v === "string") return { k: "scalar", tag: "str", value: v, text: v, pos };
  // Tagged scalars of other types (e.g. !!binary, timestamps) keep their text.
  return { k: "scalar", tag: "str", value: String(v), text: source ?? String(v), pos };
}

/** A mapping key as written (plain keys), else its value as text ("" for null). */
function mapKeyText(keyNode: Scalar): string {
  const rawKey = keyNode.value;
  return typeof keyNode.source === "string" && keyNode.type === "PLAIN"
    ? keyNode.source
    : rawKey === null
      ? ""
      : String(rawKey);
}

/** The entries a `<<` merge key brings in: from one mapping or a list of mappings. */
function mergedEntries(valueNode: YNode, keyPos: Pos | null): YEntry[] {
  const out: YEntry[] = [];
  const sources = valueNode.k === "seq" ? valueNode.items : [valueNode];
  for (const src of sources) {
    if (src.k !== "map") throw new DocumentError("merge key << needs a mapping or a list of mappings", keyPos);
    for (const e of src.entries) out.push(e);
  }
  return out;
}

/** Converts an in-memory value (programmatic spec) into a YNode tree without positions. */
export function fromValue(value: unknown): YNode {
  const budget = { n: 0 };
  return convertValue(value, 0, new Set<object>(), budget);
}

function convertValue(value: unknown, depth: number, ancestors: Set<object>, budget: { n: number }): YNode {
  if (depth > MAX_DEPTH) throw new DocumentError(`nesting deeper than ${MAX_DEPTH} levels`, null);
  if (++budget.n > MAX_EXPANDED_NODES) throw new DocumentError(`more than ${MAX_EXPANDED_NODES} values`, null);
  if (value === null || value === undefined) return nullNode(null);
  switch (typeof value) {
    case "boolean":
      return { k: "scalar", tag: "bool", value, text: String(value), pos: null };
    case "bigint":
      return { k: "scalar", tag: "int", value, text: value.toString(), pos: null };
    case "number":
      if (Number.isSafeInteger(value))
        return { k: "scalar", tag: "int", value: BigInt(value), text: String(value), pos: null };
      return { k: "scalar", tag: "float", value, text: String(value), pos: null };
    case "string":
      return { k: "scalar", tag: "str", value, text: value, pos: null };
    case "object": {
      if (ancestors.has(value)) throw new DocumentError("cyclic structure", null);
      ancestors.add(value);
      try {
        if (Array.isArray(value)) {
          return { k: "seq", items: value.map((v) => convertValue(v, depth + 1, ancestors, budget)), pos: null };
        }
        const proto = Object.getPrototypeOf(value) as unknown;
        if (proto !== Object.prototype && proto !== null) {
          throw new DocumentError(`unsupported value of type ${(value as object).constructor?.name ?? "object"}`, null);
        }
        const entries: YEntry[] = [];
        for (const [key, v] of Object.entries(value)) {
          if (v === undefined) continue;
          entries.push({ key, keyPos: null, value: convertValue(v, depth + 1, ancestors, budget) });
        }
        return { k: "map", entries, pos: null };
      } finally {
        ancestors.delete(value);
      }
    }
    default:
      throw new DocumentError(`unsupported value of type ${typeof value}`, null);
  }
}
