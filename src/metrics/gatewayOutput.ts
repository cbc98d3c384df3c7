// The gateway's lines of the anomaly block (docs/gateway.md "Output"), printed only for runs
// with a control plane, so other runs keep their output.
import type { GatewayCounts } from "../gateway/counters.js";

/** Whether the anomaly block must print for the gateway's sake. */
export function gatewayAnomalies(g: GatewayCounts | undefined): boolean {
  if (g === undefined) return false;
  return (
    g.rejected > 0 ||
    g.shed > 0 ||
    g.expired > 0 ||
    g.timedOut > 0 ||
    g.evicted > 0 ||
    g.depth > 0 ||
    g.shedByTier.length > 0
  );
}

/** `Shed (<tier>)` lines, after the admission rejections. */
export function shedLines(g: GatewayCounts | undefined): string {
  if (g === undefined) return "";
  let out = "";
  for (const [tier, n] of g.shedByTier) out += `  Shed (${tier}): ${n}\n`;
  return out;
}

/** The gateway counters, each only when > 0. */
export function gatewayLines(g: GatewayCounts | undefined): string {
  if (g === undefined) return "";
  let out = "";
  if (g.depth > 0) out += `Gateway Queue Depth (horizon): ${g.depth}\n`;
  if (g.shed > 0) out += `Gateway Queue Shed: ${g.shed}\n`;
  if (g.rejected > 0) out += `Gateway Queue Rejected: ${g.rejected}\n`;
  if (g.evicted > 0) out += `Gateway Evicted (in-flight): ${g.evicted}\n`;
  if (g.expired > 0) out += `Gateway Expired (TTL): ${g.expired}\n`;
  if (g.timedOut > 0) out += `Gateway Timed Out (deadline): ${g.timedOut}\n`;
  return out;
}

/** Arrivals that ended in the gateway (rejected, shed, expired, timed out, evicted) or are still queued there. */
export function gatewayAccounted(g: GatewayCounts | undefined): number {
  return g === undefined ? 0 : g.rejected + g.shed + g.expired + g.timedOut + g.evicted + g.depth;
}
