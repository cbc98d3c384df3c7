// A plugin's policy descriptor as written, checked field by field and made into the form the
// registries hold. Plugins are plain JavaScript: a descriptor may carry a zod object schema as
// `params`, a plain object of defaults (`{ floor: 0.1 }`, set with --plugin-option), or nothing.
import { UserError } from "../util/errors.js";
import { factoryPolicy, type ParamSchema, type PolicyDescriptor } from "../util/policyRegistry.js";
import type { PlainParamValue as PlainValue } from "./types.js";

/** A descriptor before its parameters are known. */
type WithoutParams<C, T> = Omit<PolicyDescriptor<C, T, unknown>, "params">;

/** Who registers: the plugin's name (for --plugin-option) and file (for malformed descriptors). */
export interface PluginSource {
  readonly name: string;
  readonly file: string;
  /** Its --plugin-option values. */
  readonly options: Readonly<Record<string, string>>;
}

/**
 * The descriptor `d` (or the older `name, factory` pair) of a policy of `kind` from `plugin`,
 * checked: a malformed one throws one UserError naming the file and the field.
 */
export function pluginDescriptor<C, T>(
  plugin: PluginSource,
  kind: string,
  d: unknown,
  factory: unknown,
): PolicyDescriptor<C, T, unknown> {
  const bad = (what: string): UserError => new UserError(`--plugin ${plugin.file}: ${kind} ${what}`);
  if (typeof d === "string") {
    if (d === "") throw bad(`name must be a non-empty string`);
    if (typeof factory !== "function") throw bad(`"${d}": factory must be a function`);
    return factoryPolicy(d, factory as (c: C) => T);
  }
  if (!isRecord(d)) throw bad(`descriptor must be an object (or a name and a factory), got ${typeName(d)}`);
  const name = d["name"];
  if (typeof name !== "string" || name === "") throw bad(`descriptor: "name" is missing or not a non-empty string`);
  const field = (key: string, type: string, ok: (v: unknown) => boolean): void => {
    if (d[key] !== undefined && !ok(d[key])) throw bad(`"${name}": "${key}" must be ${type}, got ${typeName(d[key])}`);
  };
  if (typeof d["create"] !== "function") throw bad(`"${name}": "create" is missing or not a function`);
  field("description", "a string", (v) => typeof v === "string");
  field("flags", "an array", Array.isArray);
  field("validate", "a function", (v) => typeof v === "function");
  field("summary", "a function", (v) => typeof v === "function");
  const flags: unknown[] = Array.isArray(d["flags"]) ? d["flags"] : [];
  const badFlag = flags.findIndex(
    (f) => !(isRecord(f, true) && typeof f["key"] === "string" && typeof f["flag"] === "string"),
  );
  if (badFlag >= 0) throw bad(`"${name}": "flags[${badFlag}]" must be an object with a string "key" and "flag"`);
  const desc = d as Partial<WithoutParams<C, T>> & Pick<WithoutParams<C, T>, "name" | "create">;
  const complete = { ...desc, description: desc.description ?? "", flags: desc.flags ?? [] };
  const params = d["params"];
  if (isZodObject(params)) return { ...complete, params };
  if (params !== undefined && !isRecord(params)) {
    throw bad(`"${name}": "params" must be a zod object schema or a plain object of defaults, got ${typeName(params)}`);
  }
  const defaults = plainDefaults(params ?? {}, (key, v) =>
    bad(`"${name}": "params.${key}" must be a number, string or boolean, got ${typeName(v)}`),
  );
  return bindPlain(complete, withOptions(defaults, plugin, kind, name));
}

/** A descriptor with plain parameters, its values fixed at load time: it reads no run options. */
function bindPlain<C, T>(d: WithoutParams<C, T>, values: Record<string, PlainValue>): PolicyDescriptor<C, T, unknown> {
  const { validate, summary } = d;
  return {
    ...factoryPolicy(d.name, (c: C) => d.create(values, c), d.description),
    flags: d.flags,
    ...(validate ? { validate: () => validate.call(d, values) } : {}),
    ...(summary ? { summary: () => summary.call(d, values) } : {}),
  };
}

function plainDefaults(
  params: Record<string, unknown>,
  bad: (key: string, v: unknown) => UserError,
): Record<string, PlainValue> {
  const out: Record<string, PlainValue> = {};
  for (const [key, v] of Object.entries(params)) {
    if (!(typeof v === "number" || typeof v === "string" || typeof v === "boolean")) throw bad(key, v);
    out[key] = v;
  }
  return out;
}

/** The defaults with the plugin's --plugin-option values for the same keys, coerced to the default's type. */
function withOptions(
  defaults: Record<string, PlainValue>,
  plugin: PluginSource,
  kind: string,
  name: string,
): Record<string, PlainValue> {
  const out = { ...defaults };
  for (const [key, d] of Object.entries(defaults)) {
    const raw = plugin.options[key];
    if (raw === undefined) continue;
    const v = coerce(raw, d);
    if (v === null) {
      const expected = typeof d === "boolean" ? "true or false" : "a number";
      throw new UserError(
        `plugin ${plugin.name}: --plugin-option ${plugin.name}.${key}=${raw}: expected ${expected} (${kind} "${name}")`,
      );
    }
    out[key] = v;
  }
  return out;
}

/** `raw` as the type of `like`, or null when it does not read as one. */
export function coerce(raw: string, like: PlainValue): PlainValue | null {
  if (typeof like === "string") return raw;
  if (typeof like === "boolean") return raw === "true" ? true : raw === "false" ? false : null;
  const n = raw.trim() === "" ? NaN : Number(raw);
  return Number.isFinite(n) ? n : null;
}

/** A zod object schema, from this package's zod or the plugin's own copy. */
function isZodObject(v: unknown): v is ParamSchema<unknown> {
  return isRecord(v, true) && typeof v["parse"] === "function" && isRecord(v["shape"], true);
}

/** A plain object (`{...}`), or with `any` set, any non-null non-array object. */
function isRecord(v: unknown, any = false): v is Record<string, unknown> {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
  const proto: unknown = Object.getPrototypeOf(v);
  return any || proto === Object.prototype || proto === null;
}

function typeName(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  if (typeof v === "object") return isZodLike(v) ? "a zod schema that is not an object" : "an object";
  return typeof v;
}

function isZodLike(v: object): boolean {
  return typeof (v as { parse?: unknown }).parse === "function";
}
