// The measured pieces of one model on one GPU at one TP degree (docs/latency.md "Kernels"):
// curves for each GEMM of a layer, the MoE layer, the all-reduce, the LM head and attention,
// built once per (model, GPU, TP, vLLM version) and shared by every instance.

import { isMoe, layerSplit, type ArchConfig } from "../archConfig.js";
import { DecodeSurface, PrefillAttention, prefillCurve, type AttentionShape } from "./attention.js";
import { Curve } from "./curve.js";
import { gemmCurve, type Extrapolations } from "./gemm.js";
import type { GemmGrid, GpuSystem, KernelTables } from "./tables.js";

/** Largest batch vLLM captures in CUDA graphs by default: all-reduces replay as a graph up to it. */
const CUDA_GRAPH_MAX_TOKENS = 512;

export interface LayerCosts {
  /** µs of everything whose cost depends only on the step's token count m (all layers). */
  tokens(m: number): number;
  /** µs of the LM head for `rows` sequences producing logits. */
  lmHead(rows: number): number;
  /** µs of prefill attention for one chunk of n tokens after c cached ones, one layer. */
  prefillChunk(c: number, n: number): number;
  /** µs of decode attention for a batch averaging `context` cached tokens, one layer. */
  decode(batch: number, context: number): number;
  readonly numLayers: number;
}

interface MlpCurves {
  up: Curve;
  down: Curve;
}

function gemmDtype(tables: KernelTables, arch: ArchConfig, notes: Extrapolations): GemmGrid {
  if (arch.weightBytes === 1 && tables.gemm.fp8 !== undefined) return tables.gemm.fp8;
  if (arch.weightBytes === 1) notes.add("fp8 weights: no fp8 GEMM table on this GPU, bf16 times used");
  return tables.gemm.bfloat16!;
}

function mlp(g: GemmGrid, d: number, f: number, tp: number, notes: Extrapolations, what: string): MlpCurves {
  return {
    up: gemmCurve(g, (2 * f) / tp, d, notes, `${what} gate/up`),
    down: gemmCurve(g, d, f / tp, notes, `${what} down`),
  };
}

/** The MoE layer: the measured fused kernel when its shape is in the table, else grouped GEMMs. */
function moeCost(
  tables: KernelTables,
  arch: ArchConfig,
  g: GemmGrid,
  tp: number,
  notes: Extrapolations,
): (m: number) => number {
  const dtype = arch.weightBytes === 1 ? "fp8" : "bfloat16";
  const k = Math.max(1, arch.expertsPerTok);
  const E = arch.numExperts;
  const key = [dtype, arch.hiddenSize, arch.moeIntermediateSize, k, E, tp, 1].join("/");
  const measured = tables.moe[key];
  if (measured !== undefined) {
    const last = measured.x[measured.x.length - 1]!;
    const c = new Curve(
      measured.x,
      measured.us,
      1,
      notes.lazy(`MoE tokens beyond ${last}, scaled linearly from ${last}`),
    );
    return (m) => c.at(m);
  }
  notes.add(`MoE ${key} not measured: priced as ${E} expert GEMMs of the routed tokens`);
  const e = mlp(g, arch.hiddenSize, arch.moeIntermediateSize, tp, notes, "expert");
  return (m) => {
    const perExpert = Math.max(1, (m * k) / E);
    return E * (e.up.at(perExpert) + e.down.at(perExpert));
  };
}

function allReduce(
  tables: KernelTables,
  sys: GpuSystem,
  tp: number,
  d: number,
  notes: Extrapolations,
): (m: number) => number {
  if (tp <= 1) return () => 0;
  const graph = tables.allreduce[`vllm_graph/${tp}`];
  const eager = tables.allreduce[`vllm_eager/${tp}`];
  if (graph !== undefined && eager !== undefined) {
    const cg = new Curve(graph.x, graph.us, 1);
    const ce = new Curve(eager.x, eager.us, 1);
    return (m) => (m <= CUDA_GRAPH_MAX_TOKENS ? cg : ce).at(m * d);
  }
  // The TP degrees this GPU's table has (not every GPU and version was measured at 2, 4 and 8).
  const measured = Object.keys(tables.allreduce)
    .filter((k) => k.startsWith("vllm_graph/"))
    .map((k) => Number(k.slice("vllm_graph/".length)))
    .sort((a, b) => a - b);
  const have = measured.length > 0 ? `measured at TP ${measured.join(", ")}` : "none measured";
  notes.add(`TP ${tp} all-reduce not measured (${have}): ring all-reduce at the intra-node bandwidth`);
  const bw = sys.intra_node_bw_bytes_per_s / 1e6; // bytes per µs
  return (m) => 10 + (2 * (tp - 1) * m * d * 2) / (tp * bw);
}

export function buildLayerCosts(
  tables: KernelTables,
  sys: GpuSystem,
  arch: ArchConfig,
  tp: number,
  notes: Extrapolations,
): LayerCosts {
  const g = gemmDtype(tables, arch, notes);
  const d = arch.hiddenSize;
  const dh = arch.headDim > 0 ? arch.headDim : Math.floor(d / arch.numHeads);
  const shape: AttentionShape = { heads: arch.numHeads / tp, kvHeads: Math.max(1, arch.numKvHeads / tp), headDim: dh };
  const qkv = gemmCurve(g, ((shape.heads + 2 * shape.kvHeads) * dh) | 0, d, notes, "QKV");
  const out = gemmCurve(g, d, shape.heads * dh, notes, "output projection");
  const split = layerSplit(arch);
  const dense = split.nDense > 0 ? mlp(g, d, arch.denseIntermediateSize, tp, notes, "MLP") : undefined;
  const moe = isMoe(arch) ? moeCost(tables, arch, g, tp, notes) : undefined;
  const router = isMoe(arch) ? gemmCurve(g, arch.numExperts, d, notes, "router") : undefined;
  const shared =
    isMoe(arch) && arch.sharedExpertSize > 0 ? mlp(g, d, arch.sharedExpertSize, tp, notes, "shared expert") : undefined;
  const vocab = arch.vocabSize > 0 ? arch.vocabSize : 32000;
  const head = gemmCurve(tables.gemm.bfloat16!, Math.ceil(vocab / tp), d, notes, "LM head");
  const ar = allReduce(tables, sys, tp, d, notes);
  const decode = new DecodeSurface(tables.generation, shape, notes);
  const prefill = new PrefillAttention(prefillCurve(tables.context, shape, notes), decode);
  const L = arch.numLayers;
  // Norms, rotary, activation and residual adds: memory-bound passes over the activations.
  const ab = arch.activationBytes;
  const bytesPerToken = L * ab * (10 * d + (3 * (arch.denseIntermediateSize || arch.intermediateSize)) / tp);
  const bw = sys.mem_bw_bytes_per_s / 1e6;
  return {
    numLayers: L,
    tokens(m) {
      let t = L * (qkv.at(m) + out.at(m)) + 2 * L * ar(m) + (m * bytesPerToken) / bw;
      if (dense !== undefined) t += split.nDense * (dense.up.at(m) + dense.down.at(m));
      if (moe !== undefined) t += split.nMoe * (moe(m) + router!.at(m));
      if (shared !== undefined) t += split.nMoe * (shared.up.at(m) + shared.down.at(m));
      return t;
    },
    lmHead: (rows) => head.at(rows),
    prefillChunk: (c, n) => prefill.chunk(c, n),
    decode: (batch, context) => decode.at(batch, context),
  };
}
