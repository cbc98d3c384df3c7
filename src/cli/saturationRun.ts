// The `blis saturation` action: check the configuration, search, print (loaded on demand).
import { simulate } from "../sim/simulate.js";
import { SweepPool } from "../experiment/pool.js";
import {
  ProbeError,
  searchSaturation,
  type Probe,
  type SearchResult,
  type SearchSettings,
} from "../experiment/saturationSearch.js";
import { DETECTOR_NAMES } from "../saturation/detectors.js";
import { silentLogger } from "../util/log.js";
import { UserError } from "../util/errors.js";
import { writeFileAtomic } from "../util/atomicWrite.js";
import type { CliIo } from "./io.js";
import { writeOutput } from "./outputPaths.js";

export interface SearchCliOptions {
  jobs: number;
  /** true: --progress; false: --no-progress; undefined: a bar on a terminal. */
  progress: boolean | undefined;
  out: string | undefined;
}

export async function runSaturationSearch(s: SearchSettings, o: SearchCliOptions, io: CliIo): Promise<void> {
  // One request through the whole pipeline: a bad flag or file fails here, once, as `blis run` would say it.
  await simulate(
    { ...s.base, rate: s.minRate, numRequests: 1, detectors: "all", saturationFinalWindow: "10s" },
    { logger: silentLogger },
  );
  const pool = new SweepPool(o.jobs);
  let res: SearchResult;
  try {
    // Scripts get a clean stderr: progress only on a terminal, or when asked for.
    const shown = o.progress ?? io.stderrStream?.isTTY === true;
    res = await searchSaturation(s, {
      pool,
      progress: shown ? (o.progress === true ? "lines" : "auto") : "none",
      say: io.stderrLine,
      rounds: shown,
    });
  } catch (e) {
    if (e instanceof ProbeError) throw new UserError(e.message);
    throw e;
  } finally {
    await pool.close();
  }
  io.stdout(renderSearch(res, s, DETECTOR_NAMES));
  if (o.out !== undefined) writeOutput("--out", o.out, renderCsv(res.probes, DETECTOR_NAMES), writeFileAtomic);
}

const fmt = (x: number, d = 2): string => (Number.isFinite(x) ? x.toFixed(d) : "NaN");

function headline(res: SearchResult, s: SearchSettings): string {
  if (res.saturated === null) return `Not saturated up to --max-rate ${s.maxRate} req/s\n`;
  if (res.sustained === null) return `Saturated already at --min-rate ${s.minRate} req/s\n`;
  return `Saturation rate: ${res.saturated} req/s (highest sustained probe: ${res.sustained} req/s)\n`;
}

export function renderSearch(res: SearchResult, s: SearchSettings, names: readonly string[]): string {
  const labels = s.detectors.length > 0 ? ` or ${s.detectors.join("/")} says OVERLOADED` : "";
  const rule = `a probe is saturated when its ratio (completions per arrival over the second half of its arrivals) is below ${s.minRatio}${labels}`;
  const head = [
    "rate",
    "offered",
    "responses/s",
    "ratio",
    "TTFT p99 ms",
    "E2E p99 ms",
    "queued",
    "running",
    ...names,
    "saturated",
  ];
  const rows = res.probes.map((p) => row(p, names));
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]): string =>
    cells
      .map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
      .join("  ")
      .trimEnd() + "\n";
  return (
    "=== Saturation Search ===\n" +
    headline(res, s) +
    `${s.requests} requests per probe, seed ${s.seed}; ${rule}\n\n` +
    line(head) +
    rows.map(line).join("")
  );
}

function row(p: Probe, names: readonly string[]): string[] {
  return [
    String(p.rate),
    fmt(p.offered),
    fmt(p.responsesPerSec),
    fmt(p.ratio, 3),
    fmt(p.ttftP99Ms, 1),
    fmt(p.e2eP99Ms, 1),
    String(p.stillQueued),
    String(p.stillRunning),
    ...names.map((n) => p.labels[n] ?? ""),
    p.saturated ? "yes" : "no",
  ];
}

function renderCsv(probes: readonly Probe[], names: readonly string[]): string {
  const head = [
    "rate",
    "offered",
    "responses_per_sec",
    "ratio",
    "ttft_p99_ms",
    "e2e_p99_ms",
    "still_queued",
    "still_running",
    ...names,
    "saturated",
  ];
  const lines = probes.map((p) =>
    [
      p.rate,
      p.offered,
      p.responsesPerSec,
      p.ratio,
      p.ttftP99Ms,
      p.e2eP99Ms,
      p.stillQueued,
      p.stillRunning,
      ...names.map((n) => p.labels[n] ?? ""),
      p.saturated,
    ].join(","),
  );
  return [head.join(","), ...lines].join("\n") + "\n";
}
