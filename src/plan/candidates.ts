// From the question to the shapes worth searching: probe every GPU × TP, drop what cannot run
// (no latency data, does not fit, TP the heads do not split over, no price), and give each
// remaining shape its physical lower bound.

import type { RunInput } from "../config/runOptions.js";
import { UserError } from "../util/errors.js";
import { latencyFloor, offeredLoad, shapeBound, type OfferedLoad } from "./bound.js";
import { probeAll, type ProbeResult } from "./probe.js";
import type { PlanQuestion } from "./question.js";
import type { ShapeSearch } from "./search.js";
import { enumerateShapes, type Shape } from "./shapes.js";
import type { LatencySlo } from "./slo.js";

export interface SkippedShape {
  shape: Shape;
  kind: string;
  reason: string;
}

export interface CandidateSpace {
  load: OfferedLoad;
  searches: ShapeSearch[];
  skipped: SkippedShape[];
  /** Latency backend of each runnable GPU/TP (by `gpu/tp`). */
  backends: Map<string, string>;
}

/** The options every evaluation shares plus the load, for generating the workload once. */
export function loadInput(q: PlanQuestion): RunInput {
  return { ...q.base, rate: q.rate, numRequests: q.requests, seed: q.seeds[0]! };
}

export async function buildCandidates(q: PlanQuestion): Promise<CandidateSpace> {
  const shapes = enumerateShapes(q);
  if (shapes.length === 0)
    throw new UserError(
      "the candidate space is empty: --gpus, --tp, --pd and the engine limits must each list a value",
    );
  const probes = await probeAll(q.base, q.gpus, q.tps);
  const load = offeredLoad(loadInput(q));
  if (load.requests === 0)
    throw new UserError("the workload generates no requests; check --rate, --num-requests and the workload flags");
  const searches: ShapeSearch[] = [];
  const skipped: SkippedShape[] = [];
  const backends = new Map<string, string>();
  shapes.forEach((shape, index) => {
    const probe = probes.get(`${shape.gpu}/${shape.tp}`)!;
    const price = q.prices.perGpuHour[shape.gpu];
    if (!probe.ok) skipped.push({ shape, kind: probe.kind, reason: probe.reason });
    else if (price === undefined)
      skipped.push({ shape, kind: "no-price", reason: `no price for ${shape.gpu} in ${q.prices.file}` });
    else {
      backends.set(`${shape.gpu}/${shape.tp}`, probe.backend);
      const bound = shapeBound(probe.model, shape, load, probe.kvBlocks * probe.blockSize);
      searches.push({ shape, index, bound, pricePerGpu: price, lo: bound.units - 1, hi: null, end: null, path: [] });
    }
  });
  if (searches.length === 0) throw new UserError(noRunnableShape(q, probes));
  checkFloors(q, searches, probes, load);
  return { load, searches, skipped, backends };
}

/** Why no shape can run, in one line. */
function noRunnableShape(q: PlanQuestion, probes: Map<string, ProbeResult>): string {
  const fails = [...probes.values()].filter((p): p is Exclude<ProbeResult, { ok: true }> => !p.ok);
  const model = String(q.base.model ?? "");
  if (
    fails.length === probes.size &&
    fails.every((f) => f.kind === "does-not-fit" || f.kind === "invalid-tp") &&
    fails.some((f) => f.kind === "does-not-fit")
  ) {
    return `${model} fits no GPU in the candidate space (--gpus ${q.gpus.join(",")} --tp ${q.tps.join(",")}); try larger --tp`;
  }
  if (fails.length === probes.size) {
    const kinds = [...new Set(fails.map((f) => f.reason))];
    return `no candidate can run ${model}: ${kinds[0]}${kinds.length > 1 ? ` (and ${kinds.length - 1} other reasons; see --gpus, --tp)` : ""}`;
  }
  return `no candidate GPU has a price in ${q.prices.file}; add them or pass --gpu-prices`;
}

/** An SLO below what an idle instance of every shape takes for the shortest request is unmeetable. */
function checkFloors(
  q: PlanQuestion,
  searches: ShapeSearch[],
  probes: Map<string, ProbeResult>,
  load: OfferedLoad,
): void {
  for (const slo of q.slos) {
    if (slo.kind !== "latency") continue;
    let least = Infinity;
    let where = "";
    for (const s of searches) {
      const p = probes.get(`${s.shape.gpu}/${s.shape.tp}`)!;
      if (!p.ok) continue;
      const f = latencyFloor(p.model, s.shape, load)[(slo as LatencySlo).dim];
      if (f < least) {
        least = f;
        where = `${s.shape.gpu} TP${s.shape.tp}`;
      }
    }
    if (least > slo.limit) {
      throw new UserError(
        `--slo ${slo.key}=${slo.limit} cannot be met: even the fastest candidate (${where}) takes ${least.toFixed(2)} ms for the shortest request on an idle instance`,
      );
    }
  }
}
