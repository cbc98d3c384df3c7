// The PD request flow (docs/prefill-decode.md "Request flow"): a decode instance is picked at
// routing, the decider splits the request or serves it there; a split request prefills on the
// prefill pool, its KV moves to the decode instance once the last prefill step ends, and the
// decode runs there with the KV already held.

import { Request } from "../core/request.js";
import { SeqRequest } from "../core/workloadRequest.js";
import type { Instance } from "../instance/instance.js";
import type { RoutingPolicy } from "../cluster/routing/routing.js";
import type { InstanceSnapshot, RouterState } from "../cluster/snapshot.js";
import type { CacheSignals } from "../cluster/scorers/cacheSignals.js";
import type { ClusterExtension, ClusterPort } from "../cluster/extension.js";
import { PD_EXTENSION, RANK_PREFILL_ROUTING, RANK_TRANSFER_COMPLETED, RANK_TRANSFER_STARTED } from "./descriptor.js";
import { InvariantError } from "../util/errors.js";
import { unservableCheck } from "../instance/unservable.js";
import type { Logger } from "../util/log.js";
import type { PdDecider } from "./deciders.js";
import { ROLE_DECODE, ROLE_PREFILL, type PdTopology } from "./topology.js";
import type { TransferModel } from "./transfer.js";
import { DONE, DROPPED_DECODE, DROPPED_PREFILL, ParentRecord, REJECTED } from "./records.js";

/** What the session manager reads of a user request that ended. */
export interface EndedUserRequest {
  readonly id: string;
  readonly inputLen: number;
  readonly outputLen: number;
  readonly pi: number;
}

export interface PdControllerParts {
  topology: PdTopology;
  decider: PdDecider;
  prefillPolicy: RoutingPolicy;
  decodePolicy: RoutingPolicy;
  transfer: TransferModel;
  blockSize: number;
  log: Logger;
}

/** A router state restricted to one pool (reused between decisions). */
class PoolView implements RouterState {
  readonly snapshots: InstanceSnapshot[] = [];
  clock = 0;
  cache: CacheSignals | null = null;
  constructor(private readonly roles: Uint8Array) {}

  fill(state: RouterState, bit: number): this {
    const out = this.snapshots;
    out.length = 0;
    for (const s of state.snapshots) if ((this.roles[s.index]! & bit) !== 0) out.push(s);
    this.clock = state.clock;
    this.cache = state.cache ?? null;
    return this;
  }
}

/** Prefill/decode disaggregation as a cluster extension: it takes over routing and runs the PD events. */
export class PdController implements ClusterExtension {
  readonly descriptor = PD_EXTENSION;
  /** Disaggregated requests in routing order. */
  readonly parents: ParentRecord[] = [];
  /** Sequence numbers of the requests served whole on their decode instance. */
  readonly direct: number[] = [];
  prefillCompleted = 0;
  decodeCompleted = 0;
  droppedAtDecode = 0;
  transfersInitiated = 0;
  transfersCompleted = 0;
  /** Decode sub-requests put into a decode instance's wait queue. */
  decodeEnqueued = 0;
  /** Decode picks per instance whose decode sub-request has not reached it (counted in flight). */
  readonly pendingPicks: Int32Array;
  /** Closed-loop hook for user requests that ended (null in open-loop runs). */
  userLeave: ((req: EndedUserRequest, t: number, dropped: boolean) => void) | null = null;

  private port!: ClusterPort;
  private readonly subs = new Map<Request, ParentRecord>();
  private readonly decodeView: PoolView;
  private readonly prefillView: PoolView;

  constructor(private readonly parts: PdControllerParts) {
    const roles = parts.topology.roles;
    this.decodeView = new PoolView(roles);
    this.prefillView = new PoolView(roles);
    this.pendingPicks = new Int32Array(roles.length);
  }

  get transfer(): TransferModel {
    return this.parts.transfer;
  }

  /** The pools it routes to. */
  get topology(): PdTopology {
    return this.parts.topology;
  }

  attach(port: ClusterPort): void {
    this.port = port;
  }

  /** Parents whose prefill finished and whose KV is not yet in a decode queue (nor dropped). */
  inTransfer(): number {
    return this.prefillCompleted - this.droppedAtDecode - this.decodeEnqueued;
  }

  route(req: Request, clock: number): void {
    const port = this.port;
    const view = this.decodeView.fill(port.takeState(clock, req), ROLE_DECODE);
    if (view.snapshots.length === 0) {
      this.reject("decode", req);
      return;
    }
    const policy = this.parts.decodePolicy;
    const d = policy.route(req, view);
    const pos = checkedTarget(d.target, view, policy.name);
    const target = view.snapshots[pos]!.index;
    port.applyPriority(req, d.priorityHint);
    // A request its decode instance can never hold is served whole there, which drops it at once.
    const inst = port.instances[target]!;
    const split =
      this.parts.decider.decide(req, target, view) && unservableCheck(req, inst.cfg, inst.kv.totalBlocks) === null;
    const trace = port.trace;
    if (trace !== null) trace.disaggregations.push({ requestId: req.id, clock, disaggregate: split });
    if (!split) {
      if (trace !== null) trace.recordRouting(req.id, clock, pos, d.reason, d.scores, view.snapshots);
      this.direct.push(req.seq);
      port.routeTo(req, target, clock, true);
      return;
    }
    // The decode pick counts in flight from now on, so load-aware decode routing sees it.
    port.addInFlight(target, 1);
    this.pendingPicks[target]!++;
    const rec = new ParentRecord(req, target, Math.ceil(req.inputLen / this.parts.blockSize));
    req.instance = target;
    this.parents.push(rec);
    const p = this.subRequest(req, "_prefill", 0);
    rec.prefill = p;
    this.subs.set(p, rec);
    port.schedule(clock, RANK_PREFILL_ROUTING, p);
  }

  onEvent(rank: number, event: Request | null, clock: number): void {
    const req = event!; // every PD event carries its sub-request
    const rec = this.subs.get(req);
    if (rec === undefined) throw new InvariantError(`PD event for unknown sub-request ${req.id}`);
    if (rank === RANK_PREFILL_ROUTING) this.routePrefill(rec, req, clock);
    else if (rank === RANK_TRANSFER_STARTED) this.startTransfer(rec, req, clock);
    else this.completeTransfer(rec, req, clock);
  }

  /**
   * An instance's request completed (at the end of its last step, t) or was dropped: returns false
   * when it is not a sub-request.
   */
  onLeave(inst: Instance, req: Request, t: number, dropped: boolean): boolean {
    const rec = this.subs.get(req);
    if (rec === undefined) return false;
    this.subs.delete(req);
    if (req === rec.prefill) {
      rec.prefill = null;
      rec.prefillSched = req.schedDelay;
      if (dropped) {
        rec.outcome = DROPPED_PREFILL;
        this.releasePick(rec);
        this.endUser(rec, req, t, true);
        return true;
      }
      rec.prefillComplete = t;
      this.prefillCompleted++;
      // Same tokens and block size: the decode side reuses the prefill's block hashes.
      rec.hashes = req.hashes;
      // Kept for the transfer: the decode sub-request is made from it.
      this.subs.set(req, rec);
      this.port.schedule(t, RANK_TRANSFER_STARTED, req);
      return true;
    }
    rec.decode = null;
    this.finishDecode(rec, inst, req, t);
    return true;
  }

  private routePrefill(rec: ParentRecord, p: Request, clock: number): void {
    const port = this.port;
    const view = this.prefillView.fill(port.takeState(clock, p), ROLE_PREFILL);
    if (view.snapshots.length === 0) {
      this.subs.delete(p);
      rec.prefill = null;
      rec.outcome = REJECTED;
      this.releasePick(rec);
      this.reject("prefill", p);
      this.endUser(rec, p, clock, true);
      return;
    }
    const policy = this.parts.prefillPolicy;
    const d = policy.route(p, view);
    const pos = checkedTarget(d.target, view, policy.name);
    const target = view.snapshots[pos]!.index;
    rec.prefillInstance = target;
    rec.prefillEnqueue = clock;
    if (port.trace !== null)
      port.trace.recordPrefillRouting(rec.parent.id, clock, pos, d.reason, d.scores, view.snapshots);
    port.countRouted(rec.decodeInstance);
    port.routeTo(p, target, clock, false);
  }

  /** The last prefill step ended: reserve the prompt's KV on the decode instance and start moving it. */
  private startTransfer(rec: ParentRecord, p: Request, clock: number): void {
    this.subs.delete(p);
    const parent = rec.parent;
    const dec = this.subRequest(parent, "_decode", parent.outputLen);
    dec.hashes = rec.hashes;
    rec.hashes = null;
    parent.dropPayload();
    p.dropPayload();
    const inst = this.port.instances[rec.decodeInstance]!;
    const L = parent.inputLen;
    this.transfersInitiated++;
    rec.local = rec.prefillInstance === rec.decodeInstance;
    if (L > 0 && !this.reserve(inst, dec, rec.local)) {
      const line = `insufficient KV capacity on ${inst.id} for ${dec.id} (${rec.numKvBlocks} blocks, ${inst.kv.freeBlocks()} free) at transfer start — dropped`;
      // One warning per run; the rest at debug level (the PD block counts them).
      if (this.droppedAtDecode === 0) this.parts.log.warn(`${line}; later ones are logged at debug level`);
      else if (this.parts.log.enabled("debug")) this.parts.log.debug(line);
      dec.dropPayload();
      this.dropAtDecode(rec, clock);
      return;
    }
    this.port.instanceChanged(rec.decodeInstance);
    dec.pi = L;
    dec.computed = L;
    dec.remoteKv = true;
    rec.decode = dec;
    this.subs.set(dec, rec);
    rec.transferStart = clock;
    const duration = rec.local ? 0 : this.parts.transfer.start(rec.numKvBlocks);
    this.port.schedule(clock + duration, RANK_TRANSFER_COMPLETED, dec);
  }

  /**
   * The decode instance's blocks for the prompt: fresh ones for a transfer; on the prefill's own
   * (shared) instance the prompt's blocks are still cached there and are reused, with no transfer.
   */
  private reserve(inst: Instance, dec: Request, local: boolean): boolean {
    const kv = inst.kv;
    const L = dec.inputLen;
    if (!local) return kv.allocate(dec, 0, L, 0);
    const bs = this.parts.blockSize;
    let k = kv.cachedPrefix(dec);
    // The last prompt token is placed, not attached, so the range is never empty.
    if (k > 0 && k * bs >= L) k--;
    return kv.allocate(dec, k * bs, L, k);
  }

  private completeTransfer(rec: ParentRecord, dec: Request, clock: number): void {
    this.transfersCompleted++;
    if (!rec.local) this.parts.transfer.finish();
    rec.transferComplete = clock;
    rec.decodeEnqueue = clock;
    const trace = this.port.trace;
    if (trace !== null) {
      trace.kvTransfers.push({
        requestId: rec.parent.id,
        start: rec.transferStart,
        duration: clock - rec.transferStart,
        numKvBlocks: rec.numKvBlocks,
        prefillInstance: `instance_${rec.prefillInstance}`,
        decodeInstance: `instance_${rec.decodeInstance}`,
      });
    }
    this.decodeEnqueued++;
    this.pendingPicks[rec.decodeInstance]!--;
    this.port.enqueueDirect(dec, rec.decodeInstance, clock);
  }

  /** The decode sub-request completed at t (end of its last step): the user request is served. */
  private finishDecode(rec: ParentRecord, inst: Instance, dec: Request, t: number): void {
    const post = dec.outputLen > 0 ? inst.latency.postDecodeOverhead() : 0;
    rec.completion = t + post;
    rec.outcome = DONE;
    this.decodeCompleted++;
    const ownE2e = (dec.ttft >= 0 ? dec.ttft : 0) + dec.itlSum + post;
    if (dec.ttft >= 0) {
      // Preempted and recomputed locally: its own first token and E2E count from the arrival.
      rec.ttft = dec.ttft;
      rec.e2e = ownE2e;
    } else {
      // The first token reaches the user at the end of the first decode step.
      rec.ttft = dec.schedDelay + inst.itl.valueAt(dec.scheduledStep);
      rec.e2e = dec.schedDelay + ownE2e;
      this.countFirstToken(inst, dec);
    }
    const O = dec.outputLen;
    rec.itl = O > 0 ? dec.itlSum / Math.max(O - 1, 1) : 0;
    this.endUser(rec, dec, t, false);
  }

  /**
   * Output tokens as the co-located engine counts them: today's timeline counts the token of the
   * prefill step, which for a split request is the first decode step's; the seed timeline counts
   * decode steps only, and a one-token output has none.
   */
  private countFirstToken(inst: Instance, dec: Request): void {
    const O = dec.outputLen;
    if (inst.latency.timeline === "current") {
      if (O >= 2) inst.totalOutputTokens++;
    } else if (O <= 1) {
      inst.totalOutputTokens--;
    }
  }

  private dropAtDecode(rec: ParentRecord, clock: number): void {
    this.droppedAtDecode++;
    this.transfersCompleted++;
    rec.outcome = DROPPED_DECODE;
    rec.transferStart = clock;
    rec.completion = clock;
    this.releasePick(rec);
    this.endUser(rec, rec.parent, clock, true);
  }

  private releasePick(rec: ParentRecord): void {
    this.port.addInFlight(rec.decodeInstance, -1);
    this.pendingPicks[rec.decodeInstance]!--;
  }

  private reject(pool: string, req: Request): void {
    this.parts.log.warn(`no routable instances in ${pool} pool — request rejected at routing`);
    this.port.rejectAtRouting();
    req.dropPayload();
  }

  private endUser(rec: ParentRecord, sub: Request, t: number, dropped: boolean): void {
    const p = rec.parent;
    if (this.userLeave !== null)
      this.userLeave({ id: p.id, inputLen: p.inputLen, outputLen: p.outputLen, pi: sub.pi }, t, dropped);
  }

  /** `<parent ID><suffix>`: the parent's prompt, `outputLen` output tokens, its labels and priority. */
  private subRequest(parent: Request, suffix: string, outputLen: number): Request {
    const w = new SeqRequest(
      parent.arrival,
      // Both sub-requests hold the parent's tokens: none of them is private to one request.
      parent.tokens!.shared(),
      parent.inputLen,
      outputLen,
      parent.sloClass,
      parent.tenantId,
      parent.model,
      false,
      "",
      0,
      0,
      0,
      0,
      0,
      0,
    );
    w.id = parent.id + suffix;
    const r = new Request(w, this.port.nextSeq(), this.parts.blockSize);
    r.priority = parent.priority;
    r.priorityFloor = parent.priorityFloor;
    return r;
  }
}

function checkedTarget(pos: number, view: RouterState, policy: string): number {
  if (!(pos >= 0 && pos < view.snapshots.length) || !Number.isInteger(pos)) {
    throw new InvariantError(`routing policy "${policy}" chose an unknown instance (${pos})`);
  }
  return pos;
}
