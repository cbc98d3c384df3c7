// The registered workload sources (src/workload/sources/builtins.ts lists the built-in ones). A
// run binds every source to its options once, through each source's schema, then asks them in rank
// order which one it selects.

import { Registry } from "../../util/registry.js";
import { parseParams, type ParamFlag, type ParamSchema } from "../../util/policyRegistry.js";
import type { SourceContext, SourceOutput, WorkloadSource } from "./source.js";

/** A source bound to a run's options (its settings read once). */
export interface BoundSource {
  readonly name: string;
  validate(): void;
  conflicts(context: SourceContext): void;
  selects(): boolean;
  resolve(context: SourceContext): SourceOutput;
}

/** A registered source with its option type erased (parsing happens in `bind`). */
export interface RegisteredSource {
  readonly name: string;
  readonly description: string;
  readonly rank: number;
  readonly flags: readonly ParamFlag[];
  readonly params: ParamSchema<unknown>;
  bind(options: Readonly<Record<string, unknown>>): BoundSource;
}

function erase<P>(source: WorkloadSource<P>): RegisteredSource {
  return {
    name: source.name,
    description: source.description,
    rank: source.rank,
    flags: source.flags,
    params: source.params as ParamSchema<unknown>,
    bind: (options) => {
      const params = parseParams(source.params, options);
      return {
        name: source.name,
        validate: () => source.validate?.(params),
        conflicts: (context) => source.conflicts?.(params, context),
        selects: () => source.selects(params),
        resolve: (context) => source.resolve(params, context),
      };
    },
  };
}

export class WorkloadSourceRegistry {
  private readonly entries = new Registry<RegisteredSource>("workload source");

  register<P>(source: WorkloadSource<P>): void {
    this.entries.register(erase(source));
  }

  /** Removes a source (tests register sources for one run at a time). */
  unregister(name: string): void {
    this.entries.unregister(name);
  }

  has(name: string): boolean {
    return this.entries.has(name);
  }

  /** In precedence order: by rank, equal ranks in registration order. */
  ranked(): RegisteredSource[] {
    return this.entries.all().sort((a, b) => a.rank - b.rank);
  }

  /** Every source bound to `options`, in precedence order. */
  bind(options: Readonly<Record<string, unknown>>): BoundSource[] {
    return this.ranked().map((s) => s.bind(options));
  }
}

/** The first source in precedence order that the options select. */
export function selectSource(bound: readonly BoundSource[]): BoundSource {
  const chosen = bound.find((s) => s.selects());
  // The preset source takes every --workload name the others leave; none selecting is a bug.
  if (chosen === undefined) throw new Error("no workload source selects these options");
  return chosen;
}

/**
 * Every workload source a run can select (the built-ins are registered by
 * src/workload/sources/builtins.ts; library users may register more).
 */
export const workloadSources = new WorkloadSourceRegistry();
