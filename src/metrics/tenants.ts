// Per-tenant completions and output tokens with Jain's index over the tokens (docs/gateway.md
// "Per-tenant metrics"), beside the per-SLO block and --print-fairness.
import type { RequestLedger } from "../core/ledger.js";
import { formatFixed } from "../util/goFormat.js";
import { jainIndex } from "./stats.js";

export interface TenantMetrics {
  /** [tenant, completed requests, requested output tokens], by tenant ID. */
  tenants: [string, number, number][];
  jain: number;
}

/** Over completed requests with a tenant; null when there is none. */
export function tenantMetrics(ledger: RequestLedger): TenantMetrics | null {
  const requests = new Map<string, number>();
  const tokens = new Map<string, number>();
  for (let i = 0; i < ledger.size; i++) {
    if (!ledger.isCompleted(i)) continue;
    const t = ledger.tenantNames[ledger.tenant[i]!]!;
    if (t === "") continue;
    requests.set(t, (requests.get(t) ?? 0) + 1);
    tokens.set(t, (tokens.get(t) ?? 0) + ledger.outputLen[i]!);
  }
  if (requests.size === 0) return null;
  const ids = [...requests.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return { tenants: ids.map((t) => [t, requests.get(t)!, tokens.get(t)!]), jain: jainIndex(tokens) };
}

export function renderTenantMetrics(m: TenantMetrics): string {
  let out = "=== Per-Tenant Metrics ===\n";
  for (const [t, n, tok] of m.tenants) out += `  ${t}: requests=${n}, tokens=${tok}\n`;
  return out + `  Jain Fairness Index: ${formatFixed(m.jain, 4)}\n`;
}
