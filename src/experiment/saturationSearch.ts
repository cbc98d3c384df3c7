// `blis saturation`: the lowest arrival rate a configuration cannot sustain, found by probing
// rates on the sweep engine (docs/saturation.md "Finding the saturation rate").
import type { RunInput } from "../config/runOptions.js";
import type { SimulationMetrics } from "../metrics/collect.js";
import type { ProgressMode } from "./progress.js";
import type { RunExecutor } from "./pool.js";
import { runCells } from "./sweep.js";

export interface SearchSettings {
  /** Run options of every probe except the rate and the request count. */
  base: RunInput;
  minRate: number;
  maxRate: number;
  /** Stop when (saturated − sustained) / saturated is at most this. */
  precision: number;
  requests: number;
  /** Rates probed per refinement round (a fixed number, so results do not depend on --jobs). */
  probesPerRound: number;
  /** A probe completing fewer than this many requests per arrival in its steady state is saturated. */
  minRatio: number;
  /** Detectors whose OVERLOADED label marks a probe saturated (all three label every probe). */
  detectors: readonly string[];
  seed: number;
  timeoutS: number;
}

export interface Probe {
  rate: number;
  offered: number;
  responsesPerSec: number;
  ratio: number;
  ttftP99Ms: number;
  e2eP99Ms: number;
  stillQueued: number;
  stillRunning: number;
  labels: Record<string, string>;
  saturated: boolean;
}

export interface SearchResult {
  /** Lowest saturated rate probed (null: even maxRate was sustained). */
  saturated: number | null;
  /** Highest sustained rate below it (null: even minRate was saturated). */
  sustained: number | null;
  probes: Probe[];
}

export interface SearchIo {
  pool: RunExecutor;
  progress: ProgressMode;
  say: (line: string) => void;
  /** Announce each round's rates on `say`. */
  rounds?: boolean;
}

/** Rates min·2^k up to max (max itself included). */
export function ladder(min: number, max: number): number[] {
  const out: number[] = [];
  for (let r = min; r < max; r *= 2) out.push(round(r));
  out.push(round(max));
  return [...new Set(out)];
}

/** k rates evenly inside (lo, hi). */
export function refine(lo: number, hi: number, k: number): number[] {
  return Array.from({ length: k }, (_, i) => round(lo + ((hi - lo) * (i + 1)) / (k + 1))).filter(
    (r) => r > lo && r < hi,
  );
}

/** Six significant digits: probe rates print and compare exactly. */
function round(x: number): number {
  return Number(x.toPrecision(6));
}

export async function searchSaturation(s: SearchSettings, io: SearchIo): Promise<SearchResult> {
  const probes = new Map<number, Probe>();
  const runRound = async (rates: number[], round: number): Promise<void> => {
    const todo = rates.filter((r) => !probes.has(r));
    for (const p of await probeRates(s, io, todo, round)) probes.set(p.rate, p);
  };
  // Climb the ladder a round at a time: rates far past saturation are slow to simulate.
  const steps = ladder(s.minRate, s.maxRate);
  let round = 1;
  for (let i = 0; i < steps.length && bracket([...probes.values()]).hi === null; i += s.probesPerRound)
    await runRound(steps.slice(i, i + s.probesPerRound), round++);
  let { lo, hi } = bracket([...probes.values()]);
  for (; lo !== null && hi !== null && (hi - lo) / hi > s.precision; round++) {
    const rates = refine(lo, hi, s.probesPerRound);
    if (rates.length === 0) break;
    await runRound(rates, round);
    ({ lo, hi } = bracket([...probes.values()]));
  }
  return { saturated: hi, sustained: lo, probes: [...probes.values()].sort((a, b) => a.rate - b.rate) };
}

/** The lowest saturated rate and the highest sustained rate below it. */
export function bracket(probes: readonly Probe[]): { lo: number | null; hi: number | null } {
  const sorted = [...probes].sort((a, b) => a.rate - b.rate);
  const first = sorted.find((p) => p.saturated);
  const hi = first?.rate ?? null;
  const below = sorted.filter((p) => !p.saturated && (hi === null || p.rate < hi));
  return { lo: below.length > 0 ? below[below.length - 1]!.rate : null, hi };
}

async function probeRates(s: SearchSettings, io: SearchIo, rates: number[], round: number): Promise<Probe[]> {
  if (rates.length === 0) return [];
  if (io.rounds === true) io.say(`saturation: round ${round}, probing ${rates.join(", ")} req/s`);
  const metrics = new Map<string, SimulationMetrics | string>();
  // The seed goes to the plan's seed list (a cell's options must not carry one).
  const base: RunInput = { ...s.base };
  delete base.seed;
  await runCells(
    rates.map((rate) => ({
      label: `rate=${rate}`,
      input: probeInput(base, rate, s.requests),
    })),
    {
      name: `saturation round ${round}`,
      seeds: [s.seed],
      timeoutS: s.timeoutS,
      metrics: ["completed"],
      checks: { conservation: false },
      pool: io.pool,
      progress: io.progress,
      stderr: io.say,
      onRecord: (rec, config) => metrics.set(config.label, rec.metrics ?? (rec.error !== "" ? rec.error : rec.status)),
    },
  );
  return rates.map((rate) => {
    const m = metrics.get(`rate=${rate}`);
    if (m === undefined || typeof m === "string")
      throw new ProbeError(`the probe at ${rate} req/s failed: ${m ?? "not run"}`);
    return probeOf(rate, m, s.minRatio, s.detectors);
  });
}

export class ProbeError extends Error {}

/** Backlog-drift windows per probe: enough points that in-flight noise cannot pass for a drift. */
export const PROBE_WINDOWS = 500;

/**
 * One probe: `requests` requests at `rate`, stopped when its arrivals stop (requests ÷ rate, or the
 * configuration's own shorter horizon), so a backlog shows as requests still queued and running
 * and the detectors judge the loaded run, not its drain (docs/saturation.md).
 */
export function probeInput(base: RunInput, rate: number, requests: number): RunInput {
  const spanUs = Math.ceil((requests / rate) * 1e6);
  const horizon = Math.min(spanUs, Number(base.horizon ?? Infinity));
  return {
    ...base,
    rate,
    numRequests: requests,
    horizon,
    detectors: "all",
    saturationFinalWindow: "10s",
    saturationProbe: { windowSec: horizon / 1e6 / PROBE_WINDOWS },
  };
}

function probeOf(rate: number, m: SimulationMetrics, minRatio: number, counted: readonly string[]): Probe {
  const c = m.cluster;
  const dur = c.vllm_estimated_duration_s;
  const labels = c.saturation ?? {};
  const ratio = m.steadyCompletionRatio ?? c.responses_per_sec / rate;
  return {
    rate,
    offered: dur > 0 ? c.injected_requests / dur : 0,
    responsesPerSec: c.responses_per_sec,
    ratio,
    ttftP99Ms: c.ttft_p99_ms,
    e2eP99Ms: c.e2e_p99_ms,
    stillQueued: c.still_queued,
    stillRunning: c.still_running,
    labels,
    saturated: ratio < minRatio || counted.some((d) => labels[d] === "OVERLOADED"),
  };
}
