// KV transfer sizing and timing (docs/prefill-decode.md "Transfer duration and contention").
import { InvariantError, UserError } from "../util/errors.js";

/** The model quantities the per-token KV size needs. */
export interface KvShape {
  numLayers: number;
  hiddenSize: number;
  numHeads: number;
  numKvHeads: number;
  /** Bytes per value (the dtype's). */
  bytes: number;
  /** Explicit head_dim (0 = hidden / heads). */
  headDim: number;
  /** Multi-head latent attention ranks (0 = standard attention). */
  kvLoraRank: number;
  qkRopeHeadDim: number;
}

const fail = (msg: string): never => {
  throw new UserError(`PD disaggregation requires valid ModelConfig for KV transfer sizing: ${msg}`);
};

/**
 * KV bytes of one token on one prefill tensor-parallel shard: layers × 2 (K and V) × head size ×
 * KV heads × bytes / tp; latent attention stores (kv_lora_rank + qk_rope_head_dim) values per
 * layer, unsharded. KV heads fewer than tp are accepted (an optimistic approximation).
 */
export function bytesPerToken(s: KvShape, tp: number): number {
  if (!(tp > 0))
    throw new UserError(
      "PD disaggregation (--prefill-instances, --decode-instances or --prefill-decode-instances) requires prefill TP > 0 to size KV transfers (set --tp or --prefill-tp)",
    );
  if (s.numLayers <= 0) fail(`num_hidden_layers must be > 0, got ${s.numLayers}`);
  if (!(s.bytes > 0)) fail(`bytes per parameter must be > 0, got ${s.bytes}`);
  if (s.kvLoraRank > 0) return s.numLayers * (s.kvLoraRank + s.qkRopeHeadDim) * s.bytes;
  if (s.numHeads <= 0) fail(`num_attention_heads must be > 0, got ${s.numHeads}`);
  if (s.hiddenSize <= 0) fail(`hidden_size must be > 0, got ${s.hiddenSize}`);
  let headDim = s.headDim;
  if (headDim <= 0) {
    if (s.hiddenSize % s.numHeads !== 0) {
      fail(`hidden_size (${s.hiddenSize}) must be evenly divisible by num_attention_heads (${s.numHeads})`);
    }
    headDim = s.hiddenSize / s.numHeads;
  }
  const kvHeads = s.numKvHeads > 0 ? s.numKvHeads : s.numHeads;
  if (kvHeads >= tp && kvHeads % tp !== 0) fail(`num_kv_heads (${kvHeads}) must be evenly divisible by TP (${tp})`);
  return (s.numLayers * 2 * headDim * kvHeads * s.bytes) / tp;
}

export interface TransferSettings {
  /** KV bytes per token (bytesPerToken with the prefill TP). */
  bytesPerToken: number;
  blockSize: number;
  /** GB/s. */
  bandwidth: number;
  /** Milliseconds. */
  baseLatency: number;
  contention: boolean;
}

/**
 * Transfer durations: whole blocks at the link bandwidth plus a fixed latency, in ticks, at least
 * 1. With contention a transfer gets bandwidth / (transfers active at its start, itself included),
 * fixed for its whole duration.
 */
export class TransferModel {
  active = 0;
  peak = 0;
  private depthSum = 0;
  private starts = 0;
  private readonly bytesPerTick: number;
  private readonly base: number;
  private readonly blockBytes: number;

  constructor(readonly settings: TransferSettings) {
    this.bytesPerTick = settings.bandwidth * 1000;
    this.base = settings.baseLatency * 1000;
    this.blockBytes = settings.blockSize * settings.bytesPerToken;
  }

  /** A transfer of `blocks` KV blocks starts: its duration in ticks. */
  start(blocks: number): number {
    let bw = this.bytesPerTick;
    if (this.settings.contention) {
      this.active++;
      if (this.active > this.peak) this.peak = this.active;
      this.depthSum += this.active;
      this.starts++;
      if (this.active >= 2) bw /= this.active;
    }
    const bytes = blocks * this.blockBytes;
    const d = Math.ceil(bw > 0 ? this.base + bytes / bw : this.base);
    return d < 1 ? 1 : d;
  }

  /** A transfer completed. */
  finish(): void {
    if (!this.settings.contention) return;
    if (this.active <= 0)
      throw new InvariantError("contention bookkeeping corrupted: a transfer completed with none active");
    this.active--;
  }

  /** Transfers active at each start, averaged over starts (1.0 for strictly sequential transfers). */
  meanDepth(): number {
    return this.starts > 0 ? this.depthSum / this.starts : 0;
  }
}
