// Builds the PD parts of a cluster from its configuration (docs/prefill-decode.md): the role of
// each instance and its pool settings, the pool routing policies, the decider and the transfer
// model, and the instance hooks that report sub-request completions.

import type { Instance } from "../instance/instance.js";
import type { Request } from "../core/request.js";
import type { RoutingPolicy } from "../cluster/routing/routing.js";
import { PdController, type EndedUserRequest } from "../pd/controller.js";
import { buildTopology, ROLE_DECODE, ROLE_PREFILL, type PdTopology } from "../pd/topology.js";
import { TransferModel } from "../pd/transfer.js";
import type { PoolInstanceSettings, PoolRouting } from "../pd/config.js";
import type { Logger } from "../util/log.js";
import type { SimConfig } from "./simConfig.js";

export interface PdRun {
  controller: PdController;
  topology: PdTopology;
  /** --cache-signal-delay when a pool policy or the decider reads the instance caches. */
  cacheSignalDelay: number | undefined;
}

/** The pool settings of instance k: the decode pool's for decode and shared instances. */
export function poolSettingsOf(cfg: SimConfig, k: number): PoolInstanceSettings | null {
  const pd = cfg.pd;
  if (pd === undefined || pd === null) return null;
  const c = pd.counts;
  if (k < c.prefill) return pd.prefillPool;
  if (k < c.prefill + c.decode + c.shared) return pd.decodePool;
  return null;
}

export function buildPd(cfg: SimConfig, log: Logger): PdRun | null {
  const pd = cfg.pd;
  if (pd === undefined || pd === null) return null;
  const topology = buildTopology(pd.counts, cfg.cluster.numInstances);
  const decider = pd.buildDecider({ blockSize: cfg.kv.blockSize });
  // Each pool owns its policy (its own round-robin counter, prefix index and random stream).
  const prefillPolicy = poolPolicy(cfg, pd.prefillRouting);
  const decodePolicy = poolPolicy(cfg, pd.decodeRouting);
  const transfer = new TransferModel(pd.transfer);
  const controller = new PdController({
    topology,
    decider,
    prefillPolicy,
    decodePolicy,
    transfer,
    blockSize: cfg.kv.blockSize,
    log,
  });
  let cacheSignalDelay = prefillPolicy.cacheSignalDelay ?? decodePolicy.cacheSignalDelay;
  if (cacheSignalDelay === undefined && decider.readsCache) cacheSignalDelay = pd.cacheSignalDelay;
  return { controller, topology, cacheSignalDelay };
}

function poolPolicy(cfg: SimConfig, pool: PoolRouting): RoutingPolicy {
  const c = cfg.cluster;
  return pool.build({
    numInstances: c.numInstances,
    blockSize: cfg.kv.blockSize,
    scorers: pool.scorers,
    sloCacheWeights: c.routing.sloCacheWeights,
    slo: cfg.policy.slo,
  });
}

/**
 * Instance completion hooks: sub-requests go to the controller, whole requests to the closed loop;
 * a split request reaches the closed loop when its decode ends.
 */
export function wireLeave(
  instances: readonly Instance[],
  pd: PdRun | null,
  userLeave: ((req: EndedUserRequest, t: number, dropped: boolean) => void) | null,
): void {
  if (pd === null) {
    if (userLeave !== null) for (const inst of instances) inst.onLeave = userLeave;
    return;
  }
  const c = pd.controller;
  c.userLeave = userLeave;
  const roles = pd.topology.roles;
  for (const inst of instances) {
    if ((roles[inst.index]! & (ROLE_PREFILL | ROLE_DECODE)) === 0) continue;
    inst.onLeave = (req: Request, t: number, dropped: boolean): void => {
      if (!c.onLeave(inst, req, t, dropped) && userLeave !== null) userLeave(req, t, dropped);
    };
  }
}
