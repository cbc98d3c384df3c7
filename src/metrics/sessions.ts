// The session metrics block (docs/behavior.md "Closed-loop load", session metrics): TTFT of first
// rounds ("cold") and of later rounds ("warm"), and session durations, over the routed records.

import type { RequestLedger } from "../core/ledger.js";
import { formatFixed } from "../util/goFormat.js";
import { distribution, type Distribution } from "./stats.js";

export interface SessionMetrics {
  sessions: number;
  /** Millisecond distributions. */
  ttftCold: Distribution;
  ttftWarm: Distribution;
  duration: Distribution;
}

/** Session and round of a request, by request ID. */
export type SessionTags = ReadonlyMap<string, { readonly sessionId: string; readonly round: number }>;

/** Null when no routed, undropped record has a session ID. */
export function sessionMetrics(ledger: RequestLedger, tags: SessionTags): SessionMetrics | null {
  const cold: number[] = [];
  const warm: number[] = [];
  const start = new Map<string, number>();
  const end = new Map<string, number>();
  const seen = new Set<string>();
  for (let i = 0; i < ledger.size; i++) {
    if (!ledger.isRegistered(i)) continue;
    const tag = tags.get(ledger.id(i));
    if (tag === undefined) continue;
    seen.add(tag.sessionId);
    const ttft = ledger.ttft[i]!;
    if (ttft >= 0) (tag.round === 0 ? cold : warm).push(ttft / 1000);
    if (tag.round === 0) start.set(tag.sessionId, ledger.arrival[i]!);
    if (ledger.isCompleted(i)) {
      const done = ledger.arrival[i]! + ledger.e2e[i]!;
      if (done > (end.get(tag.sessionId) ?? -Infinity)) end.set(tag.sessionId, done);
    }
  }
  if (seen.size === 0) return null;
  const durations: number[] = [];
  for (const [id, s] of start) {
    const e = end.get(id);
    if (e !== undefined && e - s > 0) durations.push((e - s) / 1000);
  }
  const dist = (v: number[]): Distribution => distribution(Float64Array.from(v).sort());
  return { sessions: seen.size, ttftCold: dist(cold), ttftWarm: dist(warm), duration: dist(durations) };
}

export function renderSessionMetrics(m: SessionMetrics): string {
  const line = (label: string, d: Distribution): string =>
    d.count === 0
      ? ""
      : `  ${label} mean=${formatFixed(d.mean, 2)} p50=${formatFixed(d.p50, 2)} p95=${formatFixed(d.p95, 2)} p99=${formatFixed(d.p99, 2)} ms (n=${d.count})\n`;
  return (
    "=== Session Metrics ===\n" +
    `  Sessions: ${m.sessions}\n` +
    line("TTFT cold (round 0):", m.ttftCold) +
    line("TTFT warm (round≥1):", m.ttftWarm) +
    line("Session duration:   ", m.duration)
  );
}
