// Cohort expansion (docs/behavior.md "The workload spec", docs/behavior.md#w11): each cohort
// becomes `population` clients sharing the cohort's rate share; diurnal/spike/drain patterns become
// lifecycle windows (union). No random numbers are drawn here; members differ only by ID (hence by
// private stream).

import type { ClientSpec, CohortSpec, WindowSpec } from "./types.js";

const HOUR = 3_600_000_000;

export function diurnalWindows(peakHour: number, ratio: number): WindowSpec[] {
  const out: WindowSpec[] = [];
  for (let h = 0; h < 24; h++) {
    const m = ((1 + Math.cos((2 * Math.PI * (h - peakHour)) / 24)) / 2) * (1 - 1 / ratio) + 1 / ratio;
    const duration = Math.min(HOUR, Math.max(1, Math.trunc(HOUR * m)));
    out.push({ start_us: h * HOUR, end_us: h * HOUR + duration });
  }
  return out;
}

export function spikeWindows(start: number, duration: number): WindowSpec[] {
  return [{ start_us: start, end_us: start + duration }];
}

export function drainWindows(start: number, ramp: number): WindowSpec[] {
  const out: WindowSpec[] = [];
  const seg = Math.max(1, Math.trunc(ramp / 10));
  if (start > 0) out.push({ start_us: 0, end_us: start });
  for (let i = 0; i < 10; i++) {
    const begin = start + i * seg;
    const active = Math.max(1, Math.trunc((seg * (10 - i)) / 10));
    out.push({ start_us: begin, end_us: begin + active });
  }
  return out;
}

export function cohortWindows(c: CohortSpec): WindowSpec[] {
  const windows: WindowSpec[] = [];
  if (c.diurnal !== undefined) windows.push(...diurnalWindows(c.diurnal.peak_hour, c.diurnal.peak_to_trough_ratio));
  if (c.spike !== undefined) windows.push(...spikeWindows(c.spike.start_time_us, c.spike.duration_us));
  if (c.drain !== undefined) windows.push(...drainWindows(c.drain.start_time_us, c.drain.ramp_duration_us));
  return windows;
}

/** Number of clients the cohorts expand to (checked before expanding). */
export function cohortMemberCount(cohorts: readonly CohortSpec[]): number {
  let n = 0;
  for (const c of cohorts) n += Math.max(0, c.population);
  return n;
}

/** Members in cohort order, j = 0…population−1. Windows are shared (read-only) between members. */
export function expandCohorts(cohorts: readonly CohortSpec[]): ClientSpec[] {
  const out: ClientSpec[] = [];
  for (const c of cohorts) {
    const windows = cohortWindows(c);
    const lifecycle = windows.length > 0 ? { windows } : undefined;
    for (let j = 0; j < c.population; j++) {
      const member: ClientSpec = {
        id: `${c.id}-${j}`,
        tenant_id: c.tenant_id,
        slo_class: c.slo_class,
        model: c.model,
        rate_fraction: c.rate_fraction / c.population,
        arrival: c.arrival,
        input_distribution: c.input_distribution,
        output_distribution: c.output_distribution,
        prefix_group: c.prefix_group,
        prefix_length: 0,
        streaming: c.streaming,
      };
      if (lifecycle !== undefined) member.lifecycle = lifecycle;
      if (c.timeout !== undefined) member.timeout = c.timeout;
      if (c.slo_target_us !== undefined) member.slo_target_us = c.slo_target_us;
      if (c.adapter !== undefined) member.adapter = c.adapter;
      out.push(member);
    }
  }
  return out;
}
