// Policy descriptors: a policy is one object naming itself, its parameters (a zod schema whose
// defaults are the only defaults), the flags and bundle keys of those parameters, an optional check
// and a constructor. Flags, --help lists, bundle keys and "Valid:" lists are derived from them.
import { z } from "zod";
import { Registry } from "./registry.js";

/**
 * Any JS number, Infinity and NaN included (zod's number rejects them): float options and bundle
 * values are decoded as Go decodes float64, and the range checks report non-finite values with
 * the specified messages.
 */
export const anyNumber = z.custom<number>((v) => typeof v === "number", { message: "expected a number" });

export type FlagType = "string" | "int" | "int64" | "float" | "floats" | "bool" | "strings";
export type FlagGroup = "model" | "workload" | "engine" | "kv" | "cluster" | "policy" | "output" | "extension";

/** The command-line and bundle face of one policy parameter; its default comes from the schema. */
export interface ParamFlag {
  /** Parameter key in the schema and in the run options (camelCase of the flag). */
  key: string;
  flag: string;
  type: FlagType;
  help: string;
  group: FlagGroup;
  /** Dotted path of the value in a policy bundle (e.g. "admission.token_bucket_capacity"). */
  bundle?: string;
  /** The bundle holds a mapping whose JSON text is the option's value (a string option). */
  bundleObject?: boolean;
  /** How --help prints the default when the schema's would mislead (an optional value's source, in words). */
  shown?: string;
  /** The value's name in --help (`<path>`); absent: the type's name. */
  metavar?: string;
}

/** A parameter schema: an object whose fields carry their defaults. */
export type ParamSchema<P> = z.ZodType<P> & { shape: Record<string, z.ZodType> };

/** The parameters of a descriptor with a schema (a policy's or a feature's), as parsed. */
export type ParamsOf<D> = D extends { readonly params: ParamSchema<infer P> } ? P : never;

export interface PolicyDescriptor<C, T, P = Record<string, never>> {
  readonly name: string;
  /** One line for listings. */
  readonly description: string;
  readonly params: ParamSchema<P>;
  readonly flags: readonly ParamFlag[];
  /** Checks parameter values when the policy is selected; throws a UserError. */
  validate?(params: P): void;
  /** An info line logged when the policy is selected. */
  summary?(params: P): string;
  create(params: P, context: C): T;
}

/** A registered policy with its parameter type erased (parsing happens inside). */
export interface RegisteredPolicy<C, T> {
  readonly name: string;
  readonly family: string;
  readonly description: string;
  readonly flags: readonly ParamFlag[];
  readonly params: ParamSchema<unknown>;
  validate(source: Readonly<Record<string, unknown>>): void;
  summary(source: Readonly<Record<string, unknown>>): string | null;
  create(source: Readonly<Record<string, unknown>>, context: C): T;
  /** Reads the parameters now, typed by the descriptor's schema; the factory builds instances later. */
  bind(source: Readonly<Record<string, unknown>>): (context: C) => T;
}

const NO_PARAMS = z.object({}) as unknown as ParamSchema<Record<string, never>>;

/** A descriptor without parameters from a bare factory (the older plugin form). */
export function factoryPolicy<C, T>(
  name: string,
  factory: (context: C) => T,
  description = "",
): PolicyDescriptor<C, T> {
  return { name, description, params: NO_PARAMS, flags: [], create: (_p, c) => factory(c) };
}

/**
 * Name → descriptor lookup for one policy family; plugins register into the same registries. The
 * descriptors are kept in the generic Registry (as latency backends are), their parameters erased.
 */
export class PolicyRegistry<C, T> {
  private readonly entries: Registry<RegisteredPolicy<C, T>>;
  constructor(readonly family: string) {
    this.entries = new Registry(family);
  }

  /** Registers a descriptor, or a bare factory under a name. */
  register<P>(descriptor: PolicyDescriptor<C, T, P>): void;
  register(name: string, factory: (context: C) => T): void;
  register<P>(d: PolicyDescriptor<C, T, P> | string, factory?: (context: C) => T): void {
    const desc = typeof d === "string" ? (factoryPolicy(d, factory!) as unknown as PolicyDescriptor<C, T, P>) : d;
    const parse = (source: Readonly<Record<string, unknown>>): P => parseParams(desc.params, source);
    this.entries.register({
      name: desc.name,
      family: this.family,
      description: desc.description,
      flags: desc.flags,
      params: desc.params as ParamSchema<unknown>,
      validate: (s) => desc.validate?.(parse(s)),
      summary: (s) => (desc.summary ? desc.summary(parse(s)) : null),
      create: (s, c) => desc.create(parse(s), c),
      bind: (s) => {
        const params = parse(s);
        return (c) => desc.create(params, c);
      },
    });
  }

  /** Removes a name (plugin policies are registered for one simulation at a time). */
  unregister(name: string): void {
    this.entries.unregister(name);
  }

  has(name: string): boolean {
    return this.entries.has(name);
  }

  get(name: string): RegisteredPolicy<C, T> | undefined {
    return this.entries.get(name);
  }

  /** Builds a registered policy from parameter values keyed by option key (missing → defaults). */
  create(name: string, source: Readonly<Record<string, unknown>>, context: C): T {
    const p = this.entries.get(name);
    if (p === undefined) throw new Error(`unknown ${this.family} "${name}"`);
    return p.create(source, context);
  }

  /**
   * The policy `name` with its parameters read from `source` once, at configuration time: what a
   * run's configuration holds instead of the options (missing → defaults).
   */
  bind(name: string, source: Readonly<Record<string, unknown>>): (context: C) => T {
    const p = this.entries.get(name);
    if (p === undefined) throw new Error(`unknown ${this.family} "${name}"`);
    return p.bind(source);
  }

  /** Registered names, sorted (the order BLIS prints in "valid options" lists). */
  names(): string[] {
    return this.entries.names();
  }

  /** Registered names in registration order (the order of --help lists). */
  listed(): string[] {
    return this.entries.listed();
  }

  all(): RegisteredPolicy<C, T>[] {
    return this.entries.all();
  }
}

/** Parameter values from `source` (run options hold every family's parameters); missing → defaults. */
export function parseParams<P>(schema: ParamSchema<P>, source: Readonly<Record<string, unknown>>): P {
  return schema.parse(pickKeys(source, schema));
}

/** The schema's own keys of `source`. */
function pickKeys(
  source: Readonly<Record<string, unknown>>,
  schema: { shape: Record<string, unknown> },
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(schema.shape)) if (source[k] !== undefined) out[k] = source[k];
  return out;
}

/** What listings, flag tables and bundles read of any family's registry. */
export interface PolicyFamilyView {
  readonly family: string;
  names(): string[];
  listed(): string[];
  has(name: string): boolean;
  all(): Omit<RegisteredPolicy<never, unknown>, "create">[];
  get(name: string): Omit<RegisteredPolicy<never, unknown>, "create"> | undefined;
}
