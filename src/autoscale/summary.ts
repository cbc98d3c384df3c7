// The `=== Autoscaler ===` block of runs with node pools, lifecycle or autoscaling (docs/autoscaling.md
// "Outputs"): what the autoscaler did and the GPU time the fleet used; the same figures and the
// scaling events go into the run report.

import type { AutoscaleController } from "./controller.js";

/** What the autoscaler did (JSON-safe: the run report stores it). */
export interface AutoscaleSummary {
  created: number;
  drained: number;
  terminated: number;
  peakRoutable: number;
  minReplicas: number;
  /** Instance GPU-hours (GPUs held from placement to termination or the end of the run). */
  instanceGpuHours: number;
  /** Null without node pools. */
  nodesProvisioned: number | null;
  nodeGpuHours: number | null;
  /** Every scaling and lifecycle event, in order (time in µs). */
  events: { t: number; kind: string; instance: string; reason: string }[];
}

/** The figures of a finished run, with GPU time counted up to `end` (ticks). */
export function autoscaleSummary(ctl: AutoscaleController, end: number): AutoscaleSummary {
  const count = (kind: string): number => ctl.scaleEvents.filter((e) => e.kind === kind).length;
  const pools = ctl.fleet.pools;
  return {
    created: count("scale-up"),
    drained: count("scale-down"),
    terminated: count("terminated"),
    peakRoutable: ctl.fleet.peakRoutable,
    minReplicas: ctl.minReplicas,
    instanceGpuHours: ctl.fleet.gpuSeconds(end) / 3600,
    nodesProvisioned: pools === null ? null : pools.nodes.flat().length,
    nodeGpuHours: pools === null ? null : pools.census(end).gpuSeconds / 3600,
    events: ctl.scaleEvents.map((e) => ({ t: e.t, kind: e.kind, instance: e.instance, reason: e.reason })),
  };
}

/** The block, with GPU time counted up to `end` (ticks). */
export function renderAutoscaleSummary(ctl: AutoscaleController, end: number): string {
  const s = autoscaleSummary(ctl, end);
  const lines = [
    "=== Autoscaler ===",
    `Instances created: ${s.created}, drained: ${s.drained}, terminated: ${s.terminated}`,
    `Peak routable instances: ${s.peakRoutable}`,
    `Instance GPU-hours: ${s.instanceGpuHours.toFixed(4)}`,
  ];
  if (s.nodesProvisioned !== null)
    lines.push(`Nodes provisioned: ${s.nodesProvisioned}, node GPU-hours: ${s.nodeGpuHours!.toFixed(4)}`);
  return lines.join("\n") + "\n";
}
