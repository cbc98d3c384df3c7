// Step times composed from measured kernel latencies (docs/latency.md "Kernels"): the GEMMs,
// MoE layers and all-reduces of the step's m tokens, the LM head of its sequences, prefill
// attention per chunk and decode attention per decode batch, plus named non-negative overheads.

import { ConstructionError } from "../../util/errors.js";
import type { FeatureModel } from "../trainedPhysics.js";
import type { LatencyModel, StepRequestView } from "../model.js";
import type { LayerCosts } from "./layers.js";
import { ContextMemo } from "./contextMemo.js";

/** The overhead terms, in the order of `beta` (µs each). */
export const KERNEL_OVERHEADS = ["step_us", "layer_us", "request_us", "token_us"] as const;
/** Features of a step (fitting): measured kernel time, then one per overhead term. */
export const KERNEL_FEATURES = ["kernel_us", ...KERNEL_OVERHEADS] as const;

export interface KernelModelParams {
  /** α0 queueing, α1 post-decode, α2 per output token processing (µs; the current timeline). */
  alpha: readonly number[];
  /** Overheads in KERNEL_OVERHEADS order. */
  beta: readonly number[];
}

const MAX_TICKS = 2 ** 63;
/** Token counts up to this many have their token-only cost cached. */
const CACHE_TOKENS = 65536;

/** The token-dependent cost per m, computed once per m and shared by every instance. */
export class TokenCostCache {
  private readonly byTokens = new Float64Array(CACHE_TOKENS + 1);
  private readonly byRows = new Float64Array(CACHE_TOKENS + 1);
  /**
   * Kernel time of a step of D decodes only, by D and the sum of their positions (an integer),
   * shared by every model of this cache (the overheads are added per model).
   */
  readonly decodeSteps = new ContextMemo(1);
  constructor(readonly costs: LayerCosts) {}

  tokens(m: number): number {
    if (m > CACHE_TOKENS) return this.costs.tokens(m);
    let t = this.byTokens[m]!;
    if (t === 0) t = this.byTokens[m] = this.costs.tokens(m);
    return t;
  }

  lmHead(rows: number): number {
    if (rows > CACHE_TOKENS) return this.costs.lmHead(rows);
    let t = this.byRows[rows]!;
    if (t === 0) t = this.byRows[rows] = this.costs.lmHead(rows);
    return t;
  }
}

function validate(p: KernelModelParams): void {
  if (p.alpha.length < 3) throw new ConstructionError(`kernels model: alpha needs 3 values, got ${p.alpha.length}`);
  if (p.beta.length !== KERNEL_OVERHEADS.length) {
    throw new ConstructionError(
      `kernels model: needs ${KERNEL_OVERHEADS.length} overhead terms (${KERNEL_OVERHEADS.join(", ")}), got ${p.beta.length}`,
    );
  }
  [...p.alpha, ...p.beta].forEach((c) => {
    if (!Number.isFinite(c) || c < 0)
      throw new ConstructionError(`kernels model: coefficients must be finite and >= 0, got ${c}`);
  });
}

export class KernelLatencyModel implements LatencyModel, FeatureModel {
  readonly timeline = "current" as const;
  private readonly L: number;
  private readonly queueing: number;
  private readonly postDecode: number;
  private readonly outputProcessing: number;
  private readonly fixed: number;
  private readonly perRequest: number;
  private readonly perToken: number;

  constructor(
    private readonly cache: TokenCostCache,
    p: KernelModelParams,
  ) {
    validate(p);
    this.L = cache.costs.numLayers;
    this.queueing = Math.trunc(p.alpha[0]!);
    this.postDecode = Math.trunc(p.alpha[1]!);
    this.outputProcessing = Math.trunc(p.alpha[2]!);
    this.fixed = p.beta[0]! + p.beta[1]! * this.L;
    this.perRequest = p.beta[2]!;
    this.perToken = p.beta[3]!;
  }

  queueingTime(): number {
    return this.queueing;
  }

  outputTokenProcessingTime(): number {
    return this.outputProcessing;
  }

  postDecodeOverhead(): number {
    return this.postDecode;
  }

  // Aggregates of the last aggregate() call.
  private aggTokens = 0;
  private aggRequests = 0;
  private aggDecodes = 0;
  private aggContext = 0;
  private aggPrefillAttn = 0;
  private aggOutputs = 0;
  /** Logit rows: one per scheduled request, plus the extra verified tokens of speculating decodes. */
  private aggRows = 0;

  private aggregate(batch: readonly StepRequestView[], count: number): void {
    let m = 0;
    let B = 0;
    let D = 0;
    let S = 0;
    let out = 0;
    let pf = 0;
    let rows = 0;
    const costs = this.cache.costs;
    for (let i = 0; i < count; i++) {
      const r = batch[i]!;
      const n = r.numNewTokens;
      if (n <= 0) continue;
      B++;
      m += n;
      if (r.pi < r.inputLen) {
        const end = r.computed ?? r.pi + n;
        pf += costs.prefillChunk(end - n, n);
        if (end >= r.inputLen && r.outputLen > 0) out++;
      } else if (r.outputLen > 0) {
        D++;
        S += r.pi;
        out++;
        // A speculating decode verifies n tokens: n logit rows, one KV read (docs/speculative.md).
        rows += n - 1;
      }
    }
    this.aggTokens = m;
    this.aggRequests = B;
    this.aggDecodes = D;
    this.aggContext = S;
    this.aggPrefillAttn = pf;
    this.aggOutputs = out;
    this.aggRows = B + rows;
  }

  /**
   * Measured kernel time (µs) of the last aggregate. A step of decodes only (m, rows and D equal, no
   * prefill) depends on D and S alone, and the same ones come back step after step: remembered.
   */
  private kernelTime(m: number, rows: number, D: number, S: number, pf: number): number {
    if (pf !== 0 || m !== D || rows !== D) return this.measuredKernelTime(m, rows, D, S, pf);
    const memo = this.cache.decodeSteps;
    const s = memo.slot(D, S);
    if (s < 0) return this.measuredKernelTime(m, rows, D, S, pf);
    if (memo.has(D, s, S)) return memo.value(D, s);
    const t = this.measuredKernelTime(m, rows, D, S, pf);
    memo.keep(D, s, S, t);
    return t;
  }

  /** kernelTime() computed. */
  private measuredKernelTime(m: number, rows: number, D: number, S: number, pf: number): number {
    const c = this.cache;
    let t = c.tokens(m) + c.lmHead(rows) + this.L * pf;
    if (D > 0) t += this.L * c.costs.decode(D, S / D + 1);
    return t;
  }

  private total(m: number, rows: number, B: number, D: number, S: number, pf: number, out: number): number {
    if (B === 0) return 1;
    const step = this.kernelTime(m, rows, D, S, pf) + this.fixed + this.perRequest * B + this.perToken * out;
    if (Number.isNaN(step) || step >= MAX_TICKS) return MAX_TICKS;
    const t = Math.trunc(step);
    return t < 1 ? 1 : t;
  }

  stepTime(batch: readonly StepRequestView[], count: number): number {
    this.aggregate(batch, count);
    return this.total(
      this.aggTokens,
      this.aggRows,
      this.aggRequests,
      this.aggDecodes,
      this.aggContext,
      this.aggPrefillAttn,
      this.aggOutputs,
    );
  }

  stepTimeWithDecodes(batch: readonly StepRequestView[], count: number, decodes: number, decodePis: number): number {
    // A steady step (steadySteps.ts): decodes only, their kernel time remembered (kernelTime).
    if (count === 0) return this.total(decodes, decodes, decodes, decodes, decodePis, 0, decodes);
    this.aggregate(batch, count);
    return this.total(
      this.aggTokens + decodes,
      this.aggRows + decodes,
      this.aggRequests + decodes,
      this.aggDecodes + decodes,
      this.aggContext + decodePis,
      this.aggPrefillAttn,
      this.aggOutputs + decodes,
    );
  }

  /** Features: kernel µs, 1, L, B, output tokens (coefficients: 1 and the overheads). */
  stepFeatures(batch: readonly StepRequestView[], count: number, out: Float64Array): void {
    out.fill(0);
    this.aggregate(batch, count);
    if (this.aggRequests === 0) return;
    out[0] = this.kernelTime(this.aggTokens, this.aggRows, this.aggDecodes, this.aggContext, this.aggPrefillAttn);
    out[1] = 1;
    out[2] = this.L;
    out[3] = this.aggRequests;
    out[4] = this.aggOutputs;
  }
}
