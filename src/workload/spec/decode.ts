// Strict, schema-directed decoding of a YNode tree (docs/behavior.md "The workload spec"):
// unknown keys are errors; integer fields accept floats and truncate; a scalar where a string
// is expected becomes its literal text; bools accept YAML 1.1 spellings; null = zero value.
// Records the position of every key (path → line/column) for later error messages.

import type { AnySchema, FieldMap, Infer, ListSchema, ObjectSchema, RecordSchema } from "./schema.js";
import { zeroValue } from "./schema.js";
import type { Pos, YMap, YNode } from "./ynode.js";

export class DecodeError extends Error {
  constructor(
    /** Key path such as `clients[0].arrival.cv` ("" = root). */
    readonly path: string,
    readonly pos: Pos | null,
    readonly detail: string,
  ) {
    super(`${path === "" ? "" : path + ": "}${detail}`);
  }
}

export type PositionMap = Map<string, Pos>;

/**
 * Values decoded through repeated aliases before we give up: aliases can make a small file
 * huge (billion laughs). Values written out in the document are bounded by its size.
 */
const MAX_ALIAS_EXPANDED_VALUES = 200_000;

/** An integer field written as a non-integer number (kept as BLIS does: truncated toward zero). */
export interface Truncation {
  path: string;
  value: number;
  to: number;
}

interface Ctx {
  positions: PositionMap;
  /** Where truncated integer fields are collected, when the caller wants to report them. */
  truncations?: Truncation[];
  budget: number;
  /** Anchored nodes already decoded once; later visits are alias expansions. */
  seen: Set<YNode>;
}

export function decode<S extends AnySchema>(
  schema: S,
  node: YNode,
  positions: PositionMap = new Map(),
  path = "",
  truncations?: Truncation[],
): Infer<S> {
  const ctx: Ctx = { positions, budget: MAX_ALIAS_EXPANDED_VALUES, seen: new Set() };
  if (truncations !== undefined) ctx.truncations = truncations;
  return decodeNode(schema, node, path, ctx, false) as Infer<S>;
}

const YAML_1_1_TRUE = new Set(["y", "Y", "yes", "Yes", "YES", "on", "On", "ON"]);
const YAML_1_1_FALSE = new Set(["n", "N", "no", "No", "NO", "off", "Off", "OFF"]);
const INT64_LIMIT = 9223372036854775808;

function describe(node: YNode): string {
  if (node.k === "map") return "!!map";
  if (node.k === "seq") return "!!seq";
  const text = node.text.length > 40 ? node.text.slice(0, 37) + "..." : node.text;
  return `!!${node.tag} ${JSON.stringify(text)}`;
}

/** Defines an own property even for keys like "__proto__" (plain assignment would set the prototype). */
export function setOwn(obj: object, key: string, value: unknown): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}

function mismatch(node: YNode, target: string, path: string): DecodeError {
  return new DecodeError(path, node.pos, `cannot unmarshal ${describe(node)} into ${target}`);
}

function decodeNode(schema: AnySchema, node: YNode, path: string, ctx: Ctx, expandedIn: boolean): unknown {
  const expanded = countAliasExpansion(schema, node, path, ctx, expandedIn);
  const isNull = node.k === "scalar" && node.tag === "null";
  switch (schema.kind) {
    case "optional":
      return isNull ? undefined : decodeNode(schema.inner, node, path, ctx, expanded);
    case "string":
      return decodeString(node, path);
    case "bool":
      return decodeBool(node, path);
    case "float":
      return decodeFloat(node, path);
    case "int":
    case "int64":
      return decodeInteger(schema.kind, node, path, ctx);
    case "floatMap":
      return isNull ? {} : decodeFloatMap(node, path, ctx, expanded);
    case "record":
      return isNull ? {} : decodeRecord(schema, node, path, ctx, expanded);
    case "list":
      return isNull ? [] : decodeList(schema, node, path, ctx, expanded);
    case "object":
      if (isNull) return zeroValue(schema);
      if (node.k !== "map") throw mismatch(node, schema.name, path);
      return decodeObject(schema, node, path, ctx, expanded);
  }
}

/**
 * Whether `node` is decoded through an alias (it or an ancestor was decoded before); each such
 * value spends one unit of the expansion budget.
 */
function countAliasExpansion(schema: AnySchema, node: YNode, path: string, ctx: Ctx, expandedIn: boolean): boolean {
  let expanded = expandedIn;
  // An optional wrapper re-enters with the same node; count the node at the inner level only.
  if (node.anchored === true && !expanded && schema.kind !== "optional") {
    if (ctx.seen.has(node)) expanded = true;
    else ctx.seen.add(node);
  }
  if (expanded && --ctx.budget < 0) {
    throw new DecodeError(
      path,
      node.pos,
      `more than ${MAX_ALIAS_EXPANDED_VALUES} values from alias expansion (alias bomb?)`,
    );
  }
  return expanded;
}

function decodeString(node: YNode, path: string): string {
  if (node.k !== "scalar") throw mismatch(node, "string", path);
  return node.tag === "null" ? "" : node.tag === "str" ? (node.value as string) : node.text;
}

function decodeBool(node: YNode, path: string): boolean {
  if (node.k !== "scalar") throw mismatch(node, "bool", path);
  if (node.tag === "null") return false;
  if (node.tag === "bool") return node.value as boolean;
  if (node.tag === "str") {
    if (YAML_1_1_TRUE.has(node.value as string)) return true;
    if (YAML_1_1_FALSE.has(node.value as string)) return false;
  }
  throw mismatch(node, "bool", path);
}

function decodeFloat(node: YNode, path: string): number {
  if (node.k !== "scalar") throw mismatch(node, "float", path);
  if (node.tag === "null") return 0;
  if (node.tag === "int") return Number(node.value as bigint);
  if (node.tag === "float") return node.value as number;
  throw mismatch(node, "float", path);
}

/** An integer in the int64 range; a float is truncated toward zero. */
function decodeInteger(target: "int" | "int64", node: YNode, path: string, ctx: Ctx): number | bigint {
  if (node.k !== "scalar") throw mismatch(node, target, path);
  if (node.tag === "null") return target === "int" ? 0 : 0n;
  let big: bigint;
  if (node.tag === "int") {
    big = node.value as bigint;
  } else if (node.tag === "float" && Number.isFinite(node.value) && Math.abs(node.value as number) < INT64_LIMIT) {
    big = BigInt(Math.trunc(node.value as number));
    const value = node.value as number;
    if (!Number.isInteger(value)) ctx.truncations?.push({ path, value, to: Math.trunc(value) });
  } else {
    throw mismatch(node, target, path);
  }
  if (big >= 9223372036854775808n || big < -9223372036854775808n) throw mismatch(node, target, path);
  return target === "int" ? Number(big) : big;
}

function decodeFloatMap(node: YNode, path: string, ctx: Ctx, expanded: boolean): Record<string, number> {
  if (node.k !== "map") throw mismatch(node, "map of numbers", path);
  const out: Record<string, number> = {};
  for (const entry of node.entries) {
    const entryPath = `${path}.${entry.key}`;
    if (entry.keyPos) ctx.positions.set(entryPath, entry.keyPos);
    setOwn(out, entry.key, decodeNode({ kind: "float" }, entry.value, entryPath, ctx, expanded));
  }
  return out;
}

function decodeRecord(
  schema: RecordSchema<AnySchema>,
  node: YNode,
  path: string,
  ctx: Ctx,
  expanded: boolean,
): Record<string, unknown> {
  if (node.k !== "map") throw mismatch(node, "map", path);
  const out: Record<string, unknown> = {};
  for (const entry of node.entries) {
    const entryPath = path === "" ? entry.key : `${path}.${entry.key}`;
    if (entry.keyPos) ctx.positions.set(entryPath, entry.keyPos);
    setOwn(out, entry.key, decodeNode(schema.value, entry.value, entryPath, ctx, expanded));
  }
  return out;
}

function decodeList(schema: ListSchema<AnySchema>, node: YNode, path: string, ctx: Ctx, expanded: boolean): unknown[] {
  if (node.k !== "seq") throw mismatch(node, "list", path);
  return node.items.map((item, i) => {
    const itemPath = `${path}[${i}]`;
    if (item.pos) ctx.positions.set(itemPath, item.pos);
    return decodeNode(schema.item, item, itemPath, ctx, expanded);
  });
}

function decodeObject(
  schema: ObjectSchema<FieldMap>,
  node: YMap,
  path: string,
  ctx: Ctx,
  expanded: boolean,
): Record<string, unknown> {
  const out = zeroValue(schema) as Record<string, unknown>;
  for (const entry of node.entries) {
    const keyPath = path === "" ? entry.key : `${path}.${entry.key}`;
    const field = Object.prototype.hasOwnProperty.call(schema.fields, entry.key) ? schema.fields[entry.key] : undefined;
    if (field === undefined) {
      throw new DecodeError("", entry.keyPos, `unknown key "${keyPath}"`);
    }
    if (entry.keyPos) ctx.positions.set(keyPath, entry.keyPos);
    const value = decodeNode(field, entry.value, keyPath, ctx, expanded);
    if (value === undefined) delete out[entry.key];
    else out[entry.key] = value;
  }
  return out;
}

/** " (line L, column C)" for `path` or its nearest recorded ancestor; "" when unknown. */
export function positionSuffix(positions: PositionMap | undefined, path: string): string {
  if (positions === undefined) return "";
  let p = path;
  while (p !== "") {
    const pos = positions.get(p);
    if (pos !== undefined) return ` (line ${pos.line}, column ${pos.col})`;
    const cut = Math.max(p.lastIndexOf("."), p.lastIndexOf("["));
    p = cut <= 0 ? "" : p.slice(0, cut);
  }
  return "";
}
