// A tiny typed schema language for strict YAML decoding. Each schema describes a key set
// (unknown keys are errors), Go-like scalar conversions, and defaults (Go zero values);
// TypeScript types are inferred from the schemas so the two cannot drift apart.
// Field order in an object schema is the serialization order (docs/behavior.md "The workload spec").

export type ScalarKind = "string" | "int" | "int64" | "float" | "bool" | "floatMap";

export interface ScalarSchema<K extends ScalarKind, T> {
  readonly kind: K;
  /** Phantom: carries the decoded TypeScript type. */
  readonly __type?: T;
}
export interface ObjectSchema<F extends FieldMap> {
  readonly kind: "object";
  /** Name used in type-mismatch messages. */
  readonly name: string;
  readonly fields: F;
}
export interface ListSchema<I extends AnySchema> {
  readonly kind: "list";
  readonly item: I;
}
/** map string → value (e.g. the `workloads:` presets of defaults.yaml). */
export interface RecordSchema<V extends AnySchema> {
  readonly kind: "record";
  readonly value: V;
}
/** A pointer-like field: absent (or null) decodes to a missing key. */
export interface OptionalSchema<I extends AnySchema> {
  readonly kind: "optional";
  readonly inner: I;
}

export type AnySchema =
  | ScalarSchema<ScalarKind, unknown>
  | ObjectSchema<FieldMap>
  | ListSchema<AnySchema>
  | RecordSchema<AnySchema>
  | OptionalSchema<AnySchema>;
export interface FieldMap {
  readonly [key: string]: AnySchema;
}

type Simplify<T> = { [K in keyof T]: T[K] } & {};
type OptionalKeys<F> = { [K in keyof F]: F[K] extends OptionalSchema<AnySchema> ? K : never }[keyof F];
type InferObject<F> = Simplify<
  { -readonly [K in Exclude<keyof F, OptionalKeys<F>>]: Infer<F[K]> } & {
    -readonly [K in OptionalKeys<F>]?: F[K] extends OptionalSchema<infer I> ? Infer<I> : never;
  }
>;

export type Infer<S> =
  S extends ScalarSchema<ScalarKind, infer T>
    ? T
    : S extends ObjectSchema<infer F>
      ? InferObject<F>
      : S extends ListSchema<infer I>
        ? Infer<I>[]
        : S extends RecordSchema<infer V>
          ? Record<string, Infer<V>>
          : S extends OptionalSchema<infer I>
            ? Infer<I> | undefined
            : never;

export const str: ScalarSchema<"string", string> = { kind: "string" };
/** Integer (int/int64 in the reference) held as a JS number; floats truncate. */
export const int: ScalarSchema<"int", number> = { kind: "int" };
/** Full-precision int64 (seeds). */
export const int64: ScalarSchema<"int64", bigint> = { kind: "int64" };
export const float: ScalarSchema<"float", number> = { kind: "float" };
export const bool: ScalarSchema<"bool", boolean> = { kind: "bool" };
/** map string → float64 (distribution params). */
export const floatMap: ScalarSchema<"floatMap", Record<string, number>> = { kind: "floatMap" };

export function obj<F extends FieldMap>(name: string, fields: F): ObjectSchema<F> {
  return { kind: "object", name, fields };
}
export function list<I extends AnySchema>(item: I): ListSchema<I> {
  return { kind: "list", item };
}
export function record<V extends AnySchema>(value: V): RecordSchema<V> {
  return { kind: "record", value };
}
export function opt<I extends AnySchema>(inner: I): OptionalSchema<I> {
  return { kind: "optional", inner };
}

/** The Go zero value of a schema (what an absent or null key decodes to). */
export function zeroValue(schema: AnySchema): unknown {
  switch (schema.kind) {
    case "string":
      return "";
    case "int":
    case "float":
      return 0;
    case "int64":
      return 0n;
    case "bool":
      return false;
    case "floatMap":
    case "record":
      return {};
    case "list":
      return [];
    case "optional":
      return undefined;
    case "object": {
      const out: Record<string, unknown> = {};
      for (const [key, field] of Object.entries(schema.fields)) {
        if (field.kind !== "optional") out[key] = zeroValue(field);
      }
      return out;
    }
  }
}
