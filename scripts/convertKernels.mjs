#!/usr/bin/env node
// Converts the measured vLLM kernel tables (Apache Parquet) into the project's own compact JSON
// (data/kernels/<gpu>/<version>.json) and the GPU figures into data/kernels/systems.json.
// docs/latency.md "Kernel tables" describes the format; the values are the measured latencies,
// converted from milliseconds to microseconds and written with 5 significant digits.
//
//   node scripts/convertKernels.mjs SOURCE_DIR [OUT_DIR]
//
// SOURCE_DIR is a copy of the kernel database (systems/<gpu>.yaml, <gpu>/<family>/vllm/<version>/);
// OUT_DIR defaults to data/kernels. Run it when the source tables change; the simulator reads
// only the converted files.

import fs from "node:fs";
import path from "node:path";
import { parquetReadObjects } from "hyparquet";
import { compressors } from "hyparquet-compressors";
import { parse as parseYaml } from "yaml";

const GPUS = ["h100_sxm", "h200_sxm", "b200_sxm", "a100_sxm", "l40s", "rtx_pro_6000_server"];
const FAMILIES = {
  gemm: ["gemm", "gemm_perf.parquet"],
  context: ["attention", "context_attention_perf.parquet"],
  generation: ["attention", "generation_attention_perf.parquet"],
  moe: ["moe", "moe_perf.parquet"],
  allreduce: ["comm", "custom_allreduce_perf.parquet"],
};
const GEMM_DTYPES = new Set(["bfloat16", "fp8"]);
const MOE_DTYPES = new Set(["bfloat16", "fp8"]);

const round = (ms) => Number((ms * 1000).toPrecision(5));
const byNumber = (a, b) => a - b;
const versionKey = (v) =>
  v
    .split(".")
    .map((x) => x.padStart(6, "0"))
    .join(".");

async function readTable(file) {
  const buf = fs.readFileSync(file);
  const rows = await parquetReadObjects({
    file: buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength),
    compressors,
  });
  return rows.map((r) =>
    Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === "bigint" ? Number(v) : v])),
  );
}

/** Versions with a parquet of their own for a family. */
function ownVersions(src, gpu, family, file) {
  const dir = path.join(src, gpu, family, "vllm");
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir).filter((v) => fs.existsSync(path.join(dir, v, file)) && /^\d+\.\d+\.\d+$/.test(v));
}

/** The table file of `version`, or of the nearest version that has one (stated in the output). */
function nearestTable(src, gpu, family, file, version) {
  const own = ownVersions(src, gpu, family, file);
  if (own.length === 0) return null;
  const dist = (v) => Math.abs(Number(v.split(".")[1]) - Number(version.split(".")[1]));
  const best = [...own].sort((a, b) => dist(a) - dist(b) || versionKey(a).localeCompare(versionKey(b)))[0];
  return { version: best, file: path.join(src, gpu, family, "vllm", best, file) };
}

function groupRows(rows, keyOf) {
  const groups = new Map();
  for (const r of rows) {
    const k = keyOf(r);
    if (!groups.has(k)) groups.set(k, []);
    groups.get(k).push(r);
  }
  return groups;
}

/** A 3-D GEMM grid per dtype: sorted m, n, k and latencies in m-major order, null where unmeasured. */
function gemmGrids(rows) {
  const out = {};
  for (const [dtype, rs] of groupRows(
    rows.filter((r) => GEMM_DTYPES.has(r.gemm_dtype)),
    (r) => r.gemm_dtype,
  )) {
    const m = [...new Set(rs.map((r) => r.m))].sort(byNumber);
    const n = [...new Set(rs.map((r) => r.n))].sort(byNumber);
    const k = [...new Set(rs.map((r) => r.k))].sort(byNumber);
    const t = new Array(m.length * n.length * k.length).fill(null);
    for (const r of rs) t[(m.indexOf(r.m) * n.length + n.indexOf(r.n)) * k.length + k.indexOf(r.k)] = round(r.latency);
    out[dtype] = { m, n, k, us: t };
  }
  return out;
}

/** Rows of a 2-D table grouped by shape; within a shape, one sorted curve per batch size. */
function curves(rows, shapeKey, xKey) {
  const out = {};
  for (const [shape, rs] of groupRows(rows, shapeKey)) {
    const perBatch = {};
    for (const [b, br] of groupRows(rs, (r) => r.batch_size)) {
      // Repeated measurements of one point (shapes with as many KV heads as heads were measured
      // twice): the faster, as the lower envelope of curve.ts takes a slower point for a disturbed one.
      const byX = groupRows(br, (r) => r[xKey]);
      const xs = [...byX.keys()].sort(byNumber);
      const fastest = (g) => Math.min(...g.map((r) => r.latency));
      perBatch[b] = { x: xs, us: xs.map((x) => round(fastest(byX.get(x)))) };
    }
    out[shape] = perBatch;
  }
  return out;
}

// The KV cache is bf16 in every run the simulator models; head sizes of today's dense models.
const ATTN_HEAD_DIMS = new Set([64, 128, 256]);
/**
 * Full attention only (sliding-window rows have their own `window_size`), one kernel per table: the
 * one named for the phase (a prefill kernel for context tables, a decode kernel for generation
 * tables) when the table has one, else the kernel with the most rows.
 */
function keptAttention(rows, phase) {
  const full = rows.filter(
    (r) => r.kv_cache_dtype === "bfloat16" && ATTN_HEAD_DIMS.has(r.head_dim) && (r.window_size ?? 0) === 0,
  );
  const counts = new Map();
  for (const r of full) counts.set(r.kernel_source, (counts.get(r.kernel_source) ?? 0) + 1);
  const names = [...counts.keys()].sort((a, b) => counts.get(b) - counts.get(a) || a.localeCompare(b));
  const kernel = names.find((n) => n.includes(phase)) ?? names[0];
  return full.filter((r) => r.kernel_source === kernel);
}
const attnShape = (r) => `${r.num_heads}/${r.num_key_value_heads}/${r.head_dim}`;
// vLLM's default fused-MoE path per dtype (the Triton kernels); vendor-library and weight-only
// quantized paths are other deployments.
const OTHER_MOE_PATHS = /marlin|flashinfer|mxfp4|trtllm|modelopt/;

function moeCurves(rows) {
  const kept = rows.filter(
    (r) => r.distribution === "balanced" && MOE_DTYPES.has(r.moe_dtype) && !OTHER_MOE_PATHS.test(r.kernel_source),
  );
  const shape = (r) =>
    [r.moe_dtype, r.hidden_size, r.inter_size, r.topk, r.num_experts, r.moe_tp_size, r.moe_ep_size].join("/");
  const out = {};
  for (const [s, rs] of groupRows(kept, shape)) {
    const sorted = [...new Map(rs.map((r) => [r.num_tokens, r])).values()].sort((a, c) => a.num_tokens - c.num_tokens);
    out[s] = { x: sorted.map((r) => r.num_tokens), us: sorted.map((r) => round(r.latency)) };
  }
  return out;
}

function allreduceCurves(rows) {
  const out = {};
  for (const [k, rs] of groupRows(rows, (r) => `${r.backend}/${r.num_gpus}`)) {
    const sorted = [...rs].sort((a, c) => a.message_size - c.message_size);
    out[k] = { x: sorted.map((r) => r.message_size), us: sorted.map((r) => round(r.latency)) };
  }
  return out;
}

async function convertVersion(src, gpu, version) {
  const sources = {};
  const tables = {};
  for (const [name, [family, file]] of Object.entries(FAMILIES)) {
    const t = nearestTable(src, gpu, family, file, version);
    if (t === null) continue;
    sources[name] = t.version;
    const rows = await readTable(t.file);
    if (name === "gemm") tables.gemm = gemmGrids(rows);
    else if (name === "context") tables.context = curves(keptAttention(rows, "prefill"), attnShape, "isl");
    else if (name === "generation") tables.generation = curves(keptAttention(rows, "decode"), attnShape, "step");
    else if (name === "moe") tables.moe = moeCurves(rows);
    else tables.allreduce = allreduceCurves(rows);
    if (sources.device === undefined && rows.length > 0) sources.device = rows[0].device;
  }
  const device = sources.device;
  delete sources.device;
  return { gpu, version, device, sources, ...tables };
}

function systemFigures(src, gpu) {
  const y = parseYaml(fs.readFileSync(path.join(src, "systems", `${gpu}.yaml`), "utf8"));
  const g = y.gpu;
  return {
    mem_bw_bytes_per_s: g.mem_bw,
    mem_capacity_bytes: g.mem_capacity,
    bf16_flops: g.bfloat16_tc_flops,
    fp8_flops: g.fp8_tc_flops ?? 0,
    intra_node_bw_bytes_per_s: y.node?.intra_node_bw ?? 0,
    nccl_mem_bytes: y.misc?.nccl_mem ?? {},
  };
}

async function main() {
  const [src, outArg] = process.argv.slice(2);
  if (src === undefined) throw new Error("usage: node scripts/convertKernels.mjs SOURCE_DIR [OUT_DIR]");
  const out = outArg ?? path.join(path.dirname(new URL(import.meta.url).pathname), "..", "data", "kernels");
  fs.mkdirSync(out, { recursive: true });
  const systems = {};
  for (const gpu of GPUS) {
    systems[gpu] = systemFigures(src, gpu);
    const versions = ownVersions(src, gpu, "gemm", "gemm_perf.parquet").sort((a, b) =>
      versionKey(a).localeCompare(versionKey(b)),
    );
    // The oldest and the newest measured versions: --vllm-version picks the nearest.
    const keep = [...new Set([versions[0], versions[versions.length - 1]])];
    systems[gpu].versions = keep;
    fs.mkdirSync(path.join(out, gpu), { recursive: true });
    for (const v of keep) {
      const data = await convertVersion(src, gpu, v);
      fs.writeFileSync(path.join(out, gpu, `${v}.json`), JSON.stringify(data));
      process.stderr.write(`${gpu} ${v}: ${JSON.stringify(data.sources)}\n`);
    }
  }
  fs.writeFileSync(path.join(out, "systems.json"), JSON.stringify(systems, null, 1) + "\n");
  fs.copyFileSync(path.join(src, "LICENSE"), path.join(out, "LICENSE"));
}

await main();
