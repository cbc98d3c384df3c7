// Disaggregation deciders (docs/prefill-decode.md "Deciders"): given a request and the decode
// instance the decode pool's policy pre-selected, whether to split it into a prefill on the prefill
// pool and a decode there. Descriptors like every policy family: name, parameter schema, factory.
import { z } from "zod";
import { PolicyRegistry, factoryPolicy, type ParamsOf, type PolicyDescriptor } from "../util/policyRegistry.js";
import type { Request } from "../core/request.js";
import type { RouterState } from "../cluster/snapshot.js";
import { promptHashes } from "../cluster/scorers/cacheSignals.js";

export interface PdDecider {
  readonly name: string;
  /** True: disaggregate `req`, whose decode would run on instance `decodeInstance`. */
  decide(req: Request, decodeInstance: number, state: RouterState): boolean;
  /** Whether the decider reads the instance prefix caches (the router then keeps a cache view). */
  readonly readsCache: boolean;
}

export interface DeciderContext {
  blockSize: number;
}

export type DeciderDescriptor<P = Record<string, never>> = PolicyDescriptor<DeciderContext, PdDecider, P>;

export const pdDeciders = new PolicyRegistry<DeciderContext, PdDecider>("PD decider");

const constant = (name: string, value: boolean): PdDecider => ({ name, readsCache: false, decide: () => value });

/**
 * Disaggregates when more than `threshold` prompt tokens are not already cached on the
 * pre-selected decode instance, as the router's cache view (--cache-signal-delay) sees it.
 */
export class PrefixThresholdDecider implements PdDecider {
  readonly name = "prefix-threshold";
  readonly readsCache = true;
  constructor(
    private readonly threshold: number,
    private readonly blockSize: number,
  ) {}

  decide(req: Request, decodeInstance: number, state: RouterState): boolean {
    const L = req.inputLen;
    if (L === 0) return false;
    const cached = state.cache ? state.cache.cachedBlocks(decodeInstance, promptHashes(req, this.blockSize)) : 0;
    return L - cached * this.blockSize > this.threshold;
  }
}

export const prefixThresholdParams = z.object({ pdPrefixThreshold: z.number().int().default(16) });

export const prefixThreshold: DeciderDescriptor<z.infer<typeof prefixThresholdParams>> = {
  name: "prefix-threshold",
  description: "disaggregate when the uncached prompt exceeds a threshold",
  params: prefixThresholdParams,
  flags: [
    {
      key: "pdPrefixThreshold",
      flag: "--pd-prefix-threshold",
      type: "int",
      group: "cluster",
      help: "prefix-threshold decider: disaggregate when more than this many prompt tokens are not cached on the chosen decode instance",
    },
  ],
  create: (p, c) => new PrefixThresholdDecider(p.pdPrefixThreshold, c.blockSize),
};

/** The parameters of the built-in deciders. */
export type DeciderParams = ParamsOf<typeof prefixThreshold>;

pdDeciders.register(
  factoryPolicy("never", () => constant("never", false), "serve every request on its decode instance"),
);
pdDeciders.register(factoryPolicy("always", () => constant("always", true), "disaggregate every request"));
pdDeciders.register(prefixThreshold);

/** The decider of `name` ("" = never). */
export function deciderName(name: string): string {
  return name === "" ? "never" : name;
}
