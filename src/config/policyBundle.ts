import { parseDocument, LineCounter } from "yaml";
import { z } from "zod";
import { UserError } from "../util/errors.js";
import { anyNumber } from "../util/policyRegistry.js";
import { bundleOnlyKeys, bundleParamFlags } from "./policyFamilies.js";
import { admissionPolicies } from "../cluster/admission/admission.js";
import { routingPolicies } from "../cluster/routing/routing.js";
import { scorers } from "../cluster/scorers/scorer.js";
import { priorityPolicies } from "../policy/priority.js";
import { schedulers } from "../policy/scheduler.js";
import { readFailure, readInputFile, SPEC_FILE_LIMIT } from "../util/inputFile.js";

// YAML floats, .inf and .nan included: the validation step reports them ("must be a finite number").
const TierMap = z.record(z.string(), anyNumber);
/** Integer-valued maps (tick thresholds, token thresholds), as the corresponding int64 flags. */
const IntMap = z.record(z.string(), z.number().int());

export const PolicyBundleSchema = z.strictObject({
  admission: z
    .strictObject({
      policy: z.string().optional(),
      token_bucket_capacity: anyNumber.optional(),
      token_bucket_refill_rate: anyNumber.optional(),
      load_threshold: anyNumber.optional(),
      // Saturation-gated admission and the gateway queue (docs/gateway.md).
      tier_shed_threshold: z.number().int().optional(),
      tier_shed_min_priority: z.number().int().optional(),
      gaie_qd_threshold: anyNumber.optional(),
      gaie_kv_threshold: anyNumber.optional(),
    })
    .optional(),
  routing: z
    .strictObject({
      policy: z.string().optional(),
      scorers: z.array(z.strictObject({ name: z.string(), weight: anyNumber })).optional(),
      slo_cache_weights: TierMap.optional(),
    })
    .optional(),
  priority: z
    .strictObject({
      policy: z.string().optional(),
      base_scores: TierMap.optional(),
      age_weight: anyNumber.optional(),
      urgency_thresholds_us: IntMap.optional(),
      bridge: z.string().optional(),
    })
    .optional(),
  scheduler: z.string().optional(),
  slo_prefill_thresholds: IntMap.optional(),
  /** `preemption: NAME` (seed form) or `preemption: { policy: NAME }` (today's BLIS). */
  preemption: z.union([z.string(), z.strictObject({ policy: z.string().optional() })]).optional(),
});

export type PolicyBundle = z.infer<typeof PolicyBundleSchema>;

/**
 * Loads, strictly decodes and validates a policy bundle (docs/behavior.md
 * "Validation order and exit status").
 */
export function loadPolicyBundle(file: string): PolicyBundle {
  let text: string;
  try {
    text = readInputFile(file, SPEC_FILE_LIMIT);
  } catch (e) {
    throw new UserError(`Failed to load policy config: reading policy config: open ${file}: ${readFailure(e)}`);
  }
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc, uniqueKeys: true, logLevel: "error" });
  if (doc.errors.length > 0) {
    const e = doc.errors[0]!;
    throw new UserError(`Failed to load policy config: parsing policy config: ${e.message.split("\n")[0]}`);
  }
  if (doc.contents === null) throw new UserError("Failed to load policy config: parsing policy config: EOF");
  let raw: unknown;
  try {
    raw = doc.toJS({ maxAliasCount: 100 });
  } catch (e) {
    throw new UserError(`Failed to load policy config: parsing policy config: ${(e as Error).message}`);
  }
  const parsed = bundleSchema().safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const keyPath = [...issue.path, ...(issue.code === "unrecognized_keys" ? [issue.keys[0]!] : [])];
    const where = locate(doc, lc, keyPath);
    const what =
      issue.code === "unrecognized_keys"
        ? `unknown field "${issue.keys[0]}"`
        : `${issue.path.join(".")}: ${issue.message}`;
    throw new UserError(`Failed to load policy config: parsing policy config: ${what}${where}`);
  }
  validateBundle(parsed.data);
  return parsed.data;
}

function locate(doc: ReturnType<typeof parseDocument>, lc: LineCounter, keyPath: PropertyKey[]): string {
  try {
    const node = doc.getIn(
      keyPath.map((k) => (typeof k === "symbol" ? String(k) : k)),
      true,
    ) as { range?: [number, number, number] } | undefined;
    const parent =
      keyPath.length > 1 ? (doc.getIn(keyPath.slice(0, -1) as (string | number)[], true) as unknown) : doc.contents;
    let offset = node?.range?.[0];
    if (offset === undefined && parent && typeof parent === "object" && "items" in parent) {
      const items = (parent as { items: { key?: { value?: unknown; range?: [number, number, number] } }[] }).items;
      const last = keyPath[keyPath.length - 1];
      const item = items.find((it) => it.key?.value === last);
      offset = item?.key?.range?.[0];
    }
    if (offset === undefined) return "";
    const p = lc.linePos(offset);
    return ` (line ${p.line}, column ${p.col})`;
  } catch {
    return "";
  }
}

function checkName(kind: string, name: string | undefined, valid: string[]): void {
  if (name === undefined || name === "") return;
  if (!valid.includes(name)) {
    throw new UserError(`Invalid policy config: unknown ${kind} "${name}"; valid options: ${valid.join(", ")}`);
  }
}

function validateBundle(b: PolicyBundle): void {
  checkName("admission policy", b.admission?.policy, admissionPolicies.names());
  checkName("routing policy", b.routing?.policy, routingPolicies.names());
  checkName("priority policy", b.priority?.policy, priorityPolicies.names());
  checkName("scheduler", b.scheduler, schedulers.names());
  for (const key of ["token_bucket_capacity", "token_bucket_refill_rate"] as const) {
    const v = b.admission?.[key];
    if (v === undefined) continue;
    if (!Number.isFinite(v)) throw new UserError(`Invalid policy config: ${key} must be a finite number`);
    if (v < 0) throw new UserError(`Invalid policy config: ${key} must be non-negative`);
  }
  const seen = new Set<string>();
  (b.routing?.scorers ?? []).forEach((s, k) => {
    if (!scorers.has(s.name)) {
      throw new UserError(
        `Invalid policy config: routing scorer[${k}]: unknown scorer "${s.name}"; valid: ${scorers.names().join(", ")}`,
      );
    }
    if (seen.has(s.name)) {
      throw new UserError(`Invalid policy config: routing scorer[${k}]: duplicate scorer "${s.name}"`);
    }
    seen.add(s.name);
    if (!Number.isFinite(s.weight) || s.weight <= 0) {
      throw new UserError(
        `Invalid policy config: routing scorer[${k}] "${s.name}": weight must be a finite positive number`,
      );
    }
  });
}

/** The bundle schema with the bundle keys of registered policies' parameters it does not hold yet. */
function bundleSchema(): z.ZodType<PolicyBundle> {
  let schema: z.ZodObject = PolicyBundleSchema;
  for (const { flag, schema: params } of bundleParamFlags()) {
    const leaf = flag.bundleObject === true ? z.record(z.string(), z.unknown()) : params.shape[flag.key];
    if (flag.bundle === undefined || leaf === undefined) continue;
    schema = withPath(
      schema,
      flag.bundle.split("."),
      leaf instanceof z.ZodDefault ? (leaf.unwrap() as z.ZodType) : leaf,
    );
  }
  for (const { key, bundle, schema: params } of bundleOnlyKeys()) {
    const leaf = params.shape[key];
    if (leaf !== undefined) schema = withPath(schema, bundle.split("."), leaf);
  }
  return schema as unknown as z.ZodType<PolicyBundle>;
}

function withPath(schema: z.ZodObject, path: string[], leaf: z.ZodType): z.ZodObject {
  const [head, ...rest] = path as [string, ...string[]];
  const cur = schema.shape[head];
  if (rest.length === 0) return cur !== undefined ? schema : schema.extend({ [head]: leaf.optional() });
  const inner =
    cur instanceof z.ZodOptional && cur.unwrap() instanceof z.ZodObject
      ? (cur.unwrap() as z.ZodObject)
      : z.strictObject({});
  return schema.extend({ [head]: withPath(inner, rest, leaf).optional() });
}

/** The bundle's value at a dotted path; undefined when a part is missing. */
function valueAt(b: PolicyBundle, path: string): unknown {
  let v: unknown = b;
  for (const part of path.split("."))
    v = v !== null && typeof v === "object" ? (v as Record<string, unknown>)[part] : undefined;
  return v;
}

/** Parameter values a bundle sets, by run-option key (a policy parameter's `bundle` path). */
export function bundleParamValues(b: PolicyBundle): [string, unknown][] {
  const out: [string, unknown][] = [];
  for (const { flag } of bundleParamFlags()) {
    if (flag.bundle === undefined) continue;
    const v = valueAt(b, flag.bundle);
    if (v !== undefined) out.push([flag.key, flag.bundleObject === true ? JSON.stringify(v) : v]);
  }
  for (const { key, bundle } of bundleOnlyKeys()) {
    const v = valueAt(b, bundle);
    if (v !== undefined) out.push([key, v]);
  }
  return out;
}
