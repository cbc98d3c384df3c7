// User-level results of a PD run (docs/prefill-decode.md "Metrics under PD"): instances report
// sub-requests; the cluster tables, the results file and the counters describe user requests.

import { RequestLedger } from "../core/ledger.js";
import type { Instance } from "../instance/instance.js";
import { distribution, type PdMetrics } from "./metrics.js";
import type { PdController } from "./controller.js";
import { DONE, DROPPED_DECODE, PENDING, type ParentRecord } from "./records.js";
import { ROLE_DECODE, ROLE_PREFILL, type PdTopology } from "./topology.js";

/** The cluster counts a projection corrects (summed over instances). */
export interface CorrectableCounts {
  completed: number;
  stillRunning: number;
  dropped: number;
  simEnded: number;
}

/** What the metrics layer reads of a PD run. */
export interface PdProjection {
  /** One row per user request: non-split requests as their instance saw them, split ones projected. */
  readonly ledger: RequestLedger;
  /** Turns the instance sums into user-request counts. */
  correct(total: CorrectableCounts): void;
  /** The PD block, null when no request was split. */
  summary(total: CorrectableCounts): PdMetrics | null;
}

export function projectPd(
  c: PdController,
  instanceLedger: RequestLedger,
  instances: readonly Instance[],
  topology: PdTopology,
): PdProjection {
  instanceLedger.finalize();
  const ledger = new RequestLedger();
  for (const seq of c.direct) ledger.copyFrom(instanceLedger, seq);
  for (const rec of c.parents) addParent(ledger, rec, instances);
  return {
    ledger,
    correct(total) {
      total.completed -= c.prefillCompleted;
      total.dropped += c.droppedAtDecode;
      const inTransfer = c.inTransfer();
      if (inTransfer > 0) total.stillRunning += inTransfer;
    },
    summary(total) {
      return c.parents.length === 0 ? null : pdMetrics(c, instances, topology, total.simEnded);
    },
  };
}

/** A served parent gets its projected row; one still in progress at the horizon what it has so far. */
function addParent(ledger: RequestLedger, rec: ParentRecord, instances: readonly Instance[]): void {
  const parent = rec.parent;
  parent.instance = rec.decodeInstance;
  if (rec.outcome === DONE) {
    parent.ttft = rec.ttft;
    parent.schedDelay = rec.prefillSched;
    ledger.register(parent);
    ledger.complete(parent, rec.e2e, rec.itl);
    return;
  }
  if (rec.outcome !== PENDING) return;
  parent.schedDelay = rec.prefill !== null ? rec.prefill.schedDelay : rec.prefillSched;
  parent.ttft = -1;
  const dec = rec.decode;
  if (dec !== null && dec.itlCount > 0) {
    parent.ttft =
      dec.ttft >= 0 ? dec.ttft : dec.schedDelay + instances[rec.decodeInstance]!.itl.valueAt(dec.scheduledStep);
  }
  // Still live: finalize() copies these values.
  ledger.register(parent);
}

function pdMetrics(c: PdController, instances: readonly Instance[], topology: PdTopology, simEnded: number): PdMetrics {
  let prefillDone = 0;
  let decodeDone = 0;
  for (const inst of instances) {
    const role = topology.roles[inst.index]!;
    if ((role & ROLE_PREFILL) !== 0) prefillDone += inst.completed;
    if ((role & ROLE_DECODE) !== 0) decodeDone += inst.completed;
  }
  const seconds = simEnded / 1e6;
  const prefill = seconds > 0 ? prefillDone / seconds : 0;
  const decode = seconds > 0 ? decodeDone / seconds : 0;
  const ttft: number[] = [];
  const transfer: number[] = [];
  let disaggregated = 0;
  for (const rec of c.parents) {
    if (rec.transferComplete >= 0 || rec.outcome === DROPPED_DECODE) disaggregated++;
    if (rec.outcome === DONE && rec.ttft > 0) ttft.push(rec.ttft);
    if (!rec.local && rec.transferStart >= 0 && rec.transferComplete >= rec.transferStart)
      transfer.push(rec.transferComplete - rec.transferStart);
  }
  const t = c.transfer;
  return {
    prefillInstances: topology.prefill,
    decodeInstances: topology.decode,
    sharedInstances: topology.shared,
    disaggregated,
    decodeSubRequests: c.decodeEnqueued,
    droppedAtDecode: c.droppedAtDecode,
    prefillThroughput: prefill,
    decodeThroughput: decode,
    loadImbalance: imbalance(prefill, decode),
    parentTtft: distribution(ttft),
    transfer: distribution(transfer),
    transfers: transfer,
    contention: t.settings.contention ? { peak: t.peak, meanDepth: t.meanDepth() } : null,
  };
}

/** max / min of the pool throughputs: 1 when both are 0, null when exactly one is. */
function imbalance(a: number, b: number): number | null {
  if (a === 0 && b === 0) return 1;
  if (a === 0 || b === 0) return null;
  return Math.max(a, b) / Math.min(a, b);
}
