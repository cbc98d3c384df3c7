// Shared fixtures for the cluster-layer tests: hand-built requests, snapshots and router states.
import "../../src/policy/builtins.js";
import "../../src/gateway/builtins.js";
import { Request } from "../../src/core/request.js";
import { InstanceSnapshot, type RouterState } from "../../src/cluster/snapshot.js";
import { makeRequest, type WorkloadRequest } from "../../src/core/workloadRequest.js";
import type { RoutingContext } from "../../src/cluster/routing/routing.js";
import { chooseScorers, type ScorerSpec } from "../../src/cluster/scorers/scorer.js";
import { DEFAULT_SLO_PARAMS } from "../../src/policy/sloTiers.js";
import { cli } from "../helpers/cli.js";
import { HashIndex } from "../../src/kv/hashIndex.js";
import { CacheSignalProvider, promptHashes } from "../../src/cluster/scorers/cacheSignals.js";
import { QUIET_MODEL } from "../helpers/quietModel.js";

let seq = 0;

/** Token IDs 1..n shifted by `base` (equal bases → identical prompts). */
export function tokens(n: number, base = 0): number[] {
  return Array.from({ length: n }, (_, i) => base + i + 1);
}

export interface ReqOpts {
  arrival?: number;
  output?: number;
  blockSize?: number;
  extra?: Partial<WorkloadRequest>;
}

/** A live cluster Request built from explicit prompt tokens. */
export function mkReq(id: string, prompt: number[], o: ReqOpts = {}): Request {
  const w = makeRequest(id, o.arrival ?? 0, prompt, tokens(o.output ?? 4, 900000), o.extra ?? {});
  return new Request(w, seq++, o.blockSize ?? 16);
}

export type SnapFields = Partial<
  Pick<
    InstanceSnapshot,
    | "queueDepth"
    | "batchSize"
    | "inFlight"
    | "kvUtilization"
    | "freeKvBlocks"
    | "cacheHitRate"
    | "pendingTransferLatency"
    | "kvThrashingRate"
  >
>;

export function snap(index: number, f: SnapFields = {}): InstanceSnapshot {
  const s = new InstanceSnapshot(`instance_${index}`, index);
  Object.assign(s, f);
  return s;
}

export function state(fields: SnapFields[], clock = 0): RouterState {
  return { snapshots: fields.map((f, i) => snap(i, f)), clock };
}

/** Snapshots whose only non-zero signal is the in-flight count (EffectiveLoad = load). */
export function loads(...l: number[]): RouterState {
  return state(l.map((inFlight) => ({ inFlight })));
}

/**
 * The same router state with live cache signals: instance i holds the first cached[i] prompt blocks
 * of `req` (block size 16).
 */
export function withCache(s: RouterState, req: Request, cached: readonly number[]): RouterState {
  const h = promptHashes(req, 16);
  const caches = cached.map((c) => {
    const prefixIndex = new HashIndex(16);
    for (let k = 0; k < c; k++) prefixIndex.set(h[k]!, k);
    return { prefixIndex };
  });
  return { snapshots: s.snapshots, clock: s.clock, cache: new CacheSignalProvider(caches, 0) };
}

/** A routing context; `scorers` are bound with `params` (policy parameters by option key). */
export function routingCtx(
  numInstances: number,
  over: Partial<Omit<RoutingContext, "scorers">> & {
    scorers?: readonly ScorerSpec[];
    params?: Readonly<Record<string, unknown>>;
  } = {},
): RoutingContext {
  const { scorers, params, ...rest } = over;
  return {
    numInstances,
    blockSize: 16,
    sloCacheWeights: [0.75, 0.5, 0.25],
    slo: DEFAULT_SLO_PARAMS,
    ...rest,
    scorers: chooseScorers(scorers ?? [], params ?? {}),
  };
}

/**
 * Quiet base command line: explicit coefficients (no defaults-file warnings), a small
 * deterministic distribution workload.
 */
export const BASE = [
  "run",
  ...QUIET_MODEL,
  "--total-kv-blocks",
  "20000",
  "--num-requests",
  "12",
  "--rate",
  "20",
  "--prompt-tokens",
  "64",
  "--prompt-tokens-stdev",
  "16",
  "--prompt-tokens-min",
  "8",
  "--prompt-tokens-max",
  "128",
  "--output-tokens",
  "16",
  "--output-tokens-stdev",
  "4",
  "--output-tokens-min",
  "2",
  "--output-tokens-max",
  "32",
];

export function runCli(...extra: string[]) {
  return cli([...BASE, ...extra]);
}
