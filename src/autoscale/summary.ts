// The `=== Autoscaler ===` block of runs with node pools, lifecycle or autoscaling (docs/autoscaling.md
// "Outputs"): what the autoscaler did and the GPU time the fleet used.

import type { AutoscaleController } from "./controller.js";

/** The block, with GPU time counted up to `end` (ticks). */
export function renderAutoscaleSummary(ctl: AutoscaleController, end: number): string {
  const count = (kind: string): number => ctl.scaleEvents.filter((e) => e.kind === kind).length;
  const lines = [
    "=== Autoscaler ===",
    `Instances created: ${count("scale-up")}, drained: ${count("scale-down")}, terminated: ${count("terminated")}`,
    `Peak routable instances: ${ctl.fleet.peakRoutable}`,
    `Instance GPU-hours: ${(ctl.fleet.gpuSeconds(end) / 3600).toFixed(4)}`,
  ];
  const pools = ctl.fleet.pools;
  if (pools !== null) {
    const nodes = pools.nodes.flat();
    lines.push(`Nodes provisioned: ${nodes.length}, node GPU-hours: ${(pools.census(end).gpuSeconds / 3600).toFixed(4)}`);
  }
  return lines.join("\n") + "\n";
}
