// The results files `blis goodput` reads (JSON of `blis run --results-path`), checked field by field
// so that a hand-edited or foreign file is one line naming the file and the field, never an
// internal error or a silent "0 requests".

import { z } from "zod";
import { UserError } from "../util/errors.js";
import { DATA_FILE_LIMIT, InputFileError, readFailure, readInputFile } from "../util/inputFile.js";
import type { MetricsBlock } from "../metrics/metricsBlock.js";
import type { RequestRecord } from "../metrics/collect.js";

export type GoodputResults = MetricsBlock & { requests?: RequestRecord[] };

const finite = z.number().finite();
const nonNegative = finite.nonnegative();

const RecordSchema = z
  .object({ ttft_ms: finite, itl_ms: finite, e2e_ms: finite, slo_class: z.string().optional() })
  .passthrough();

const ClassSchema = z
  .object({ count: nonNegative.int(), slo_attainment: nonNegative.max(1), goodput_rps: nonNegative })
  .passthrough();

const ResultsSchema = z
  .object({
    vllm_estimated_duration_s: nonNegative,
    requests: z.array(RecordSchema).optional(),
    per_class: z.record(z.string(), ClassSchema).optional(),
  })
  .passthrough();

const NOT_RESULTS = "is not a results file (JSON from blis run --results-path)";

/** Reads and checks one results file; UserError naming the file (and the field) otherwise. */
export function readGoodputResults(file: string): GoodputResults {
  let text: string;
  try {
    text = readInputFile(file, DATA_FILE_LIMIT);
  } catch (e) {
    throw new UserError(`goodput: cannot read ${file}: ${(e as InputFileError).code ?? readFailure(e)}`);
  }
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw new UserError(`goodput: ${file} ${NOT_RESULTS}`);
  }
  if (v === null || typeof v !== "object" || !("vllm_estimated_duration_s" in v))
    throw new UserError(`goodput: ${file} ${NOT_RESULTS}`);
  const parsed = ResultsSchema.safeParse(v);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const where = issue.path
      .map((p) => (typeof p === "number" ? `[${p}]` : `.${String(p)}`))
      .join("")
      .replace(/^\./, "");
    throw new UserError(`goodput: ${file}: ${where}: ${issueText(issue)}`);
  }
  return parsed.data as unknown as GoodputResults;
}

function issueText(issue: z.core.$ZodIssue): string {
  if (issue.code === "invalid_type") return `expected ${issue.expected}`;
  if (issue.code === "too_small") return `must be >= ${String(issue.minimum)}`;
  if (issue.code === "too_big") return `must be <= ${String(issue.maximum)}`;
  return issue.message;
}
