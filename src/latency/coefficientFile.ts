// Trained-physics coefficient files: the bundled data/head/trained-physics.yaml and the files that
// `--latency-coeffs` reads (docs/latency.md "Coefficient files"). The schema is the reference's
// `trained_physics_coefficients` block, optionally with the per-model `defaults` map.

import fs from "node:fs";
import { parseDocument } from "yaml";
import { z } from "zod";
import { UserError } from "../util/errors.js";
import { DATA_FILE_LIMIT, InputFileError, readFailure, readInputFile, SPEC_FILE_LIMIT } from "../util/inputFile.js";

/** Terms beyond the bundled form (docs/calibration.md "Extra terms"); absent = 0. */
export const ExtraTermsSchema = z.strictObject({
  decode_context: z.number().nonnegative().optional(),
});

export const TrainedCoefficientsSchema = z.strictObject({
  alpha_coeffs: z.array(z.number()),
  beta_coeffs: z.array(z.number()),
  extra_terms: ExtraTermsSchema.optional(),
});

export const ModelDefaultSchema = z.strictObject({
  GPU: z.string(),
  tensor_parallelism: z.number().int(),
  vllm_version: z.string().optional(),
  hf_repo: z.string().optional(),
});

export const CoefficientFileSchema = z.strictObject({
  trained_physics_coefficients: TrainedCoefficientsSchema,
  defaults: z.record(z.string(), ModelDefaultSchema).optional(),
  version: z.union([z.string(), z.number()]).optional(),
  /** Summary written by `blis fit`; not read. */
  fit: z.unknown().optional(),
});

export type TrainedCoefficients = z.infer<typeof TrainedCoefficientsSchema>;
export type CoefficientFile = z.infer<typeof CoefficientFileSchema>;

const cache = new Map<string, CoefficientFile>();

/**
 * Reads a coefficient file; any problem is a one-line UserError naming the file and key. `jsonCache`
 * names a build-time JSON copy of the file (scripts/buildDataCache.mjs), read instead of parsing
 * the YAML while it records the file's current size and modification time.
 */
export function loadCoefficientFile(file: string, flag = "--latency-coeffs", jsonCache?: string): CoefficientFile {
  const hit = cache.get(file);
  if (hit !== undefined) return hit;
  const value = (jsonCache === undefined ? undefined : readJsonCache(file, jsonCache)) ?? readYaml(file, flag);
  const parsed = CoefficientFileSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const where = issue.path.join(".");
    const what = issue.code === "unrecognized_keys" ? `unknown key ${JSON.stringify(issue.keys[0])}` : issue.message;
    throw new UserError(`${flag}: ${file}: ${where !== "" ? where + ": " : ""}${what}`);
  }
  const c = parsed.data.trained_physics_coefficients;
  checkList(file, flag, "alpha_coeffs", c.alpha_coeffs, 3);
  checkList(file, flag, "beta_coeffs", c.beta_coeffs, 7);
  cache.set(file, parsed.data);
  return parsed.data;
}

export function readYaml(file: string, flag: string): unknown {
  let text: string;
  try {
    text = readInputFile(file, SPEC_FILE_LIMIT);
  } catch (e) {
    const code = (e as InputFileError).code;
    throw new UserError(
      `${flag}: cannot read ${file}: ${code === "ENOENT" ? "no such file" : (code ?? readFailure(e))}`,
    );
  }
  const doc = parseDocument(text, { uniqueKeys: true, logLevel: "error" });
  if (doc.errors.length > 0) {
    const err = doc.errors[0]!;
    const line = err.linePos?.[0]?.line;
    throw new UserError(`${flag}: ${file}${line !== undefined ? `:${line}` : ""}: ${err.message.split("\n")[0]}`);
  }
  try {
    return doc.toJS({ maxAliasCount: 100 }) ?? {};
  } catch (e) {
    // An alias that expands into too many nodes (a "billion laughs" file).
    throw new UserError(`${flag}: ${file}: ${(e as Error).message}`);
  }
}

/** The data of a build-time JSON copy of `file`, if the copy is current (scripts/buildDataCache.mjs). */
export function readJsonCache(file: string, jsonCache: string): unknown {
  try {
    const c = JSON.parse(readInputFile(jsonCache, DATA_FILE_LIMIT)) as {
      source: { size: number; mtimeMs: number };
      data: unknown;
    };
    const st = fs.statSync(file);
    return c.source.size === st.size && c.source.mtimeMs === st.mtimeMs ? c.data : undefined;
  } catch {
    return undefined;
  }
}

function checkList(file: string, flag: string, key: string, xs: readonly number[], min: number): void {
  if (xs.length < min) {
    throw new UserError(
      `${flag}: ${file}: trained_physics_coefficients.${key} needs at least ${min} values, got ${xs.length}`,
    );
  }
  xs.forEach((x, i) => {
    if (!Number.isFinite(x) || x < 0) {
      throw new UserError(
        `${flag}: ${file}: trained_physics_coefficients.${key}[${i}] must be a finite number >= 0, got ${x}`,
      );
    }
  });
}
