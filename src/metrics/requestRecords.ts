// The per-request records of the results file (docs/behavior.md "Results file").
import type { RequestLedger } from "../core/ledger.js";

export interface RequestRecord {
  arrived_at: number;
  requestID: string;
  num_prefill_tokens: number;
  num_decode_tokens: number;
  ttft_ms: number;
  itl_ms: number;
  e2e_ms: number;
  scheduling_delay_ms: number;
  slo_class?: string;
  tenant_id?: string;
  handled_by?: string;
  model?: string;
  /** LoRA adapter (docs/lora.md), when the request names one. */
  adapter?: string;
  /** Gateway queue wait (flow control), when enqueue and dispatch times are both > 0. */
  gateway_queue_delay_ms?: number;
}

/**
 * Per-request records for the results file, ordered by (arrived_at, ID) (docs/behavior.md
 * "Results file").
 */
export function requestRecords(ledger: RequestLedger, gatewayDelayMs?: ReadonlyMap<number, number>): RequestRecord[] {
  const idx: number[] = [];
  for (let i = 0; i < ledger.size; i++) if (ledger.isRegistered(i)) idx.push(i);
  idx.sort((a, b) => {
    const d = ledger.arrival[a]! - ledger.arrival[b]!;
    if (d !== 0) return d;
    return ledger.compareIds(a, b);
  });
  return idx.map((i) => {
    const done = ledger.isCompleted(i);
    const rec: RequestRecord = {
      arrived_at: ledger.arrival[i]! / 1e6,
      requestID: ledger.id(i),
      num_prefill_tokens: ledger.inputLen[i]!,
      num_decode_tokens: ledger.outputLen[i]!,
      ttft_ms: ledger.ttft[i]! >= 0 ? ledger.ttft[i]! / 1000 : 0,
      itl_ms: done ? ledger.itl[i]! / 1000 : 0,
      e2e_ms: done ? ledger.e2e[i]! / 1000 : 0,
      scheduling_delay_ms: ledger.sched[i]! >= 0 ? ledger.sched[i]! / 1000 : 0,
    };
    const slo = ledger.sloNames[ledger.slo[i]!]!;
    if (slo !== "") rec.slo_class = slo;
    const tenant = ledger.tenantNames[ledger.tenant[i]!]!;
    if (tenant !== "") rec.tenant_id = tenant;
    if (ledger.instance[i]! >= 0) rec.handled_by = `instance_${ledger.instance[i]}`;
    const model = ledger.modelNames[ledger.model[i]!]!;
    if (model !== "") rec.model = model;
    const adapter = ledger.adapterNames[ledger.adapter[i]!]!;
    if (adapter !== "") rec.adapter = adapter;
    const gd = gatewayDelayMs?.get(i);
    if (gd !== undefined) rec.gateway_queue_delay_ms = gd;
    return rec;
  });
}
