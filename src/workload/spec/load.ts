// Loading workload specs from YAML text/files (strict, first document only) and from
// in-memory objects. Key positions are remembered per spec object for validation messages.

import { UserError } from "../../util/errors.js";
import type { Logger } from "../../util/log.js";
import { SPEC_FILE_LIMIT } from "../../util/inputFile.js";
import { FileReadError, readTextFile } from "../util/files.js";
import { decode, DecodeError, type PositionMap, type Truncation } from "./decode.js";
import type { AnySchema, Infer } from "./schema.js";
import { WorkloadSpecSchema, type WorkloadSpec } from "./types.js";
import { upgradeV1ToV2 } from "./upgrade.js";
import { DocumentError, fromValue, parseFirstYamlDocument, type Pos, type YNode } from "./ynode.js";

const positionsBySpec = new WeakMap<object, PositionMap>();

/** Key positions of a spec loaded from a file (undefined for programmatic specs). */
export function specPositions(spec: object): PositionMap | undefined {
  return positionsBySpec.get(spec);
}

/** Carries the source positions of `from` over to a copy. */
export function copySpecPositions(from: object, to: object): void {
  const p = positionsBySpec.get(from);
  if (p !== undefined) positionsBySpec.set(to, p);
}

function at(pos: Pos | null): string {
  return pos === null ? "" : ` (line ${pos.line}, column ${pos.col})`;
}

/** Parses the first YAML document of `text`; errors become UserError("<what>: …"). */
export function parseYamlRoot(text: string, what: string, opts: { uniqueKeys?: boolean } = {}): YNode {
  let root;
  try {
    root = parseFirstYamlDocument(text, opts);
  } catch (err) {
    if (err instanceof DocumentError) throw new UserError(`${what}: ${err.detail}${at(err.pos)}`);
    throw err;
  }
  if (root === null) throw new UserError(`${what}: EOF (the file contains no YAML document)`);
  return root;
}

/** Strict schema decoding of a node; errors become UserError("<what>: <detail> (line L, column C)"). */
export function decodeStrict<S extends AnySchema>(
  schema: S,
  node: YNode,
  what: string,
  positions: PositionMap = new Map(),
  path = "",
  truncations?: Truncation[],
): Infer<S> {
  try {
    return decode(schema, node, positions, path, truncations);
  } catch (err) {
    if (err instanceof DecodeError) throw new UserError(`${what}: ${err.message}${at(err.pos)}`);
    throw err;
  }
}

/** Decodes the first YAML document of `text` strictly against `schema`. */
export function parseYamlStrict<S extends AnySchema>(
  text: string,
  schema: S,
  what: string,
  positions: PositionMap = new Map(),
  opts: { uniqueKeys?: boolean } = {},
): Infer<S> {
  return decodeStrict(schema, parseYamlRoot(text, what, opts), what, positions);
}

export interface LoadOptions {
  logger?: Logger;
}

/** Parses workload-spec YAML text (strict) and applies the v1→v2 upgrade. Does not validate. */
export function parseWorkloadSpec(text: string, opts: LoadOptions = {}): WorkloadSpec {
  const positions: PositionMap = new Map();
  const truncations: Truncation[] = [];
  const what = "parsing workload spec";
  const spec = decodeStrict(WorkloadSpecSchema, parseYamlRoot(text, what), what, positions, "", truncations);
  positionsBySpec.set(spec, positions);
  // Integer fields truncate a fraction as BLIS does; a planner should still see it happen.
  for (const t of truncations) {
    opts.logger?.warn(
      `workload spec: ${t.path}: ${t.value} is not an integer, truncated to ${t.to}${at(positions.get(t.path) ?? null)}`,
    );
  }
  upgradeV1ToV2(spec, opts.logger);
  return spec;
}

/** Reads and parses a workload-spec file (`reading workload spec: …` / `parsing workload spec: …`). */
export function loadWorkloadSpec(path: string, opts: LoadOptions = {}): WorkloadSpec {
  let text: string;
  try {
    text = readTextFile(path, SPEC_FILE_LIMIT);
  } catch (err) {
    if (err instanceof FileReadError) throw new UserError(`reading workload spec: ${err.message}`);
    throw err;
  }
  return parseWorkloadSpec(text, opts);
}

/**
 * Normalizes an in-memory spec (possibly hand-built or of unknown shape) into a fresh
 * WorkloadSpec with every default filled. Wrong shapes → UserError(`<prefix>: <path>: …`).
 */
export function decodeWorkloadSpec(value: unknown, prefix = "invalid workload spec"): WorkloadSpec {
  try {
    const spec = decode(WorkloadSpecSchema, fromValue(value));
    if (value !== null && typeof value === "object") copySpecPositions(value, spec);
    return spec;
  } catch (err) {
    if (err instanceof DocumentError || err instanceof DecodeError) {
      throw new UserError(`${prefix}: ${err instanceof DecodeError ? err.message : err.detail}`);
    }
    throw err;
  }
}
