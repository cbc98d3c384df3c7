// A rate schedule over a day (`--rate-schedule FILE`, CSV lines `HH:MM,RATE`): the best shape at
// the peak rate, then the fewest copies of it each interval needs (binary search below the
// peak's copies, all intervals side by side), GPU-hours, and the saving against a fleet fixed at
// the peak.

import { UserError } from "../util/errors.js";
import { readInputFile, SPEC_FILE_LIMIT } from "../util/inputFile.js";
import { Evaluator } from "./evaluate.js";
import { judge } from "./judge.js";
import type { PlanJson } from "./output.js";
import { defaultRequests, type PlanQuestion, type PlanRuntime } from "./question.js";
import type { ShapeSearch } from "./search.js";
import { gpusOf } from "./shapes.js";

export interface Schedule {
  file: string;
  /** Interval starts in minutes after midnight (ascending, the first is 0) and their rates. */
  starts: number[];
  rates: number[];
  peak: number;
}

export function loadSchedule(file: string): Schedule {
  const text = readInputFile(file, SPEC_FILE_LIMIT);
  const starts: number[] = [];
  const rates: number[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (line === "" || line.startsWith("#") || /^time\s*,/i.test(line)) return;
    const m = /^(\d{1,2}):(\d{2})\s*,\s*([^,\s]+)$/.exec(line);
    const minutes = m === null ? NaN : Number(m[1]) * 60 + Number(m[2]);
    const rate = m === null ? NaN : Number(m[3]);
    if (m === null || Number(m[2]) >= 60 || minutes >= 24 * 60)
      throw new UserError(`--rate-schedule ${file}:${i + 1}: expected HH:MM,RATE`);
    if (!(Number.isFinite(rate) && rate > 0))
      throw new UserError(`--rate-schedule ${file}:${i + 1}: the rate must be a number > 0`);
    if (starts.length > 0 && minutes <= starts[starts.length - 1]!)
      throw new UserError(`--rate-schedule ${file}:${i + 1}: times must increase`);
    if (starts.length === 0 && minutes !== 0)
      throw new UserError(`--rate-schedule ${file}:${i + 1}: the first interval must start at 00:00`);
    starts.push(minutes);
    rates.push(rate);
  });
  if (starts.length === 0) throw new UserError(`--rate-schedule ${file}: no HH:MM,RATE lines`);
  return { file, starts, rates, peak: Math.max(...rates) };
}

export interface ScheduleInterval {
  start: string;
  end: string;
  hours: number;
  rate: number;
  copies: number;
  gpus: number;
  cost_per_hour: number;
}

export interface SchedulePlan {
  shape: string;
  intervals: ScheduleInterval[];
  gpu_hours: number;
  fixed_peak_gpu_hours: number;
  cost: number;
  fixed_peak_cost: number;
  saving_fraction: number;
  /** Simulations of the per-interval searches (points × seeds), beyond the plan at the peak. */
  simulations: number;
  /** Intervals whose rate the peak's copies did not meet (non-monotone in rate), by start. */
  not_met_at_peak_copies: string[];
}

function hhmm(min: number): string {
  return `${String(Math.floor(min / 60)).padStart(2, "0")}:${String(min % 60).padStart(2, "0")}`;
}

/** Fewest copies of `best` per distinct rate, found side by side by bisection in [1, peak copies]. */
async function copiesPerRate(
  q: PlanQuestion,
  ev: Evaluator,
  best: ShapeSearch,
  rates: number[],
): Promise<{ copies: Map<number, number | null>; points: number }> {
  let points = 0;
  const peakCopies = best.hi!;
  const state = rates.map((rate) => ({ rate, lo: 0, hi: peakCopies, checkedHi: rate === q.rate }));
  for (;;) {
    const open = state.filter((s) => s.hi - s.lo > 1 || !s.checkedHi);
    if (open.length === 0) break;
    const pts = open.map((s) => ({ s, units: s.checkedHi ? Math.floor((s.lo + s.hi) / 2) : s.hi }));
    points += pts.length;
    const evals = await ev.evaluate(
      pts.map(({ s, units }) => ({
        shape: best.shape,
        units,
        rate: s.rate,
        requests: q.base.numRequests ?? defaultRequests(s.rate),
      })),
    );
    pts.forEach(({ s, units }, i) => {
      const ok = judge(evals[i]!, q.slos, q.seedRule, q.minCompletionRatio).feasible;
      if (!s.checkedHi) {
        s.checkedHi = true;
        if (!ok) s.lo = s.hi = -1;
      } else if (ok) s.hi = units;
      else s.lo = units;
    });
  }
  return { copies: new Map(state.map((s) => [s.rate, s.hi < 0 ? null : s.hi])), points };
}

export async function planSchedule(
  q: PlanQuestion,
  rt: PlanRuntime,
  best: ShapeSearch,
  sch: Schedule,
): Promise<SchedulePlan> {
  const ev = new Evaluator(q, rt);
  let copies: Map<number, number | null>;
  let points: number;
  try {
    ({ copies, points } = await copiesPerRate(
      q,
      ev,
      best,
      [...new Set(sch.rates)].sort((a, b) => a - b),
    ));
  } finally {
    await ev.close();
  }
  const price = best.pricePerGpu;
  const peakGpus = gpusOf(best.shape, best.hi!);
  const intervals = sch.starts.map((start, i): ScheduleInterval => {
    const end = sch.starts[i + 1] ?? 24 * 60;
    const c = copies.get(sch.rates[i]!) ?? null;
    const n = c ?? best.hi!;
    const gpus = gpusOf(best.shape, n);
    return {
      start: hhmm(start),
      end: hhmm(end),
      hours: (end - start) / 60,
      rate: sch.rates[i]!,
      copies: n,
      gpus,
      cost_per_hour: Math.round(gpus * price * 100) / 100,
    };
  });
  const gpuHours = intervals.reduce((a, x) => a + x.gpus * x.hours, 0);
  const fixed = peakGpus * 24;
  return {
    shape: best.shape.id,
    intervals,
    gpu_hours: Math.round(gpuHours * 100) / 100,
    fixed_peak_gpu_hours: fixed,
    cost: Math.round(gpuHours * price * 100) / 100,
    fixed_peak_cost: Math.round(fixed * price * 100) / 100,
    saving_fraction: Math.round((1 - gpuHours / fixed) * 10000) / 10000,
    simulations: points * q.seeds.length,
    not_met_at_peak_copies: sch.starts.filter((_, i) => copies.get(sch.rates[i]!) === null).map(hhmm),
  };
}

export function renderSchedule(s: SchedulePlan, j: PlanJson): string {
  const cur = j.price_table.currency;
  const lines = [
    `Schedule for ${s.shape} (costs: ${j.price_table.label}; ${s.simulations} more simulations):`,
    "interval     rate  copies  GPUs  cost/h",
  ];
  for (const x of s.intervals) {
    lines.push(
      `${x.start}-${x.end}  ${String(x.rate).padStart(6)}  ${String(x.copies).padStart(6)}  ${String(x.gpus).padStart(4)}  ${x.cost_per_hour.toFixed(2).padStart(6)}`,
    );
  }
  lines.push(
    `GPU-hours ${s.gpu_hours} (${cur} ${s.cost.toFixed(2)}) against ${s.fixed_peak_gpu_hours} (${cur} ${s.fixed_peak_cost.toFixed(2)}) for a fleet fixed at the peak: saving ${(s.saving_fraction * 100).toFixed(1)}%`,
  );
  if (s.not_met_at_peak_copies.length > 0)
    lines.push(
      `warning: the peak's copies did not meet the SLOs at ${s.not_met_at_peak_copies.join(", ")}; those intervals keep the peak fleet`,
    );
  return lines.join("\n") + "\n";
}
