// One PD run (docs/prefill-decode.md): the controller that routes to the pools and moves KV, each
// instance's role and pool settings, the completion hooks that report sub-requests to the
// controller, and the projection of sub-requests onto user requests for the metrics.

import type { Instance } from "../../instance/instance.js";
import type { Request } from "../../core/request.js";
import { PdController } from "../../pd/controller.js";
import { buildTopology, ROLE_DECODE, ROLE_PREFILL, type PdTopology } from "../../pd/topology.js";
import { TransferModel } from "../../pd/transfer.js";
import { projectPd } from "../../pd/projection.js";
import type { PdConfig } from "../../pd/config.js";
import type { Logger } from "../../util/log.js";
import type { FeatureRun, InstanceRole, LeaveHandler } from "../feature.js";

export function startPd(pd: PdConfig, log: Logger): FeatureRun {
  const topology = buildTopology(pd.counts, pd.numInstances);
  const decider = pd.buildDecider({ blockSize: pd.blockSize });
  // Each pool owns its policy (its own round-robin counter, prefix index and random stream).
  const prefillPolicy = pd.prefillPolicy();
  const decodePolicy = pd.decodePolicy();
  const controller = new PdController({
    topology,
    decider,
    prefillPolicy,
    decodePolicy,
    transfer: new TransferModel(pd.transfer),
    blockSize: pd.blockSize,
    log,
  });
  let cacheSignalDelay = prefillPolicy.cacheSignalDelay ?? decodePolicy.cacheSignalDelay;
  if (cacheSignalDelay === undefined && decider.readsCache) cacheSignalDelay = pd.cacheSignalDelay;
  return {
    extension: controller,
    ...(cacheSignalDelay !== undefined ? { cacheSignalDelay } : {}),
    instanceRole: (k) => instanceRole(pd, k),
    wireLeave: (instances, userLeave) => wireLeave(instances, controller, topology, userLeave),
    projectUsers: (ledger, instances) => projectPd(controller, ledger, instances, topology),
    pendingInFlight: (k) => controller.pendingPicks[k]!,
  };
}

/** Instance k's role: prefill-only instances do not decode; each pool may have its own hardware. */
function instanceRole(pd: PdConfig, k: number): InstanceRole {
  const c = pd.counts;
  const pool = k < c.prefill ? pd.prefillPool : k < c.prefill + c.decode + c.shared ? pd.decodePool : null;
  const decodes = k >= c.prefill;
  if (pool === null) return { decodes };
  return { decodes, latency: pool.latency, totalKvBlocks: pool.totalKvBlocks, maxModelLen: pool.maxModelLen };
}

/**
 * Instance completion hooks: sub-requests go to the controller, whole requests to `userLeave`; a
 * split request reaches `userLeave` when its decode ends.
 */
function wireLeave(
  instances: readonly Instance[],
  c: PdController,
  topology: PdTopology,
  userLeave: LeaveHandler | null,
): void {
  c.userLeave = userLeave;
  for (const inst of instances) {
    if ((topology.roles[inst.index]! & (ROLE_PREFILL | ROLE_DECODE)) === 0) continue;
    inst.onLeave = (req: Request, t: number, dropped: boolean): void => {
      if (!c.onLeave(inst, req, t, dropped) && userLeave !== null) userLeave(req, t, dropped);
    };
  }
}
