// Human-readable output of `blis calibrate` (docs/calibration.md "Calibrate"): the report as a
// table for stdout, and the per-class / per-model breakdowns and warnings for the stderr log.

import type { Logger } from "../util/log.js";
import type { CalibrationDetails, CalibrationReport, MetricName } from "./calibrate.js";
import type { MetricComparison } from "./stats.js";

const LABEL: Record<MetricName, string> = { ttft: "TTFT", e2e: "E2E", itl: "ITL" };
const ORDER: readonly MetricName[] = ["ttft", "e2e", "itl"];

function us(v: number): string {
  return v.toFixed(1);
}
function signedUs(v: number): string {
  return (v > 0 ? "+" : "") + v.toFixed(1);
}
function pct(fraction: number): string {
  return `${(fraction * 100).toFixed(1)}%`;
}

function pad(cells: readonly string[], widths: readonly number[]): string {
  return cells
    .map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
    .join("  ")
    .trimEnd();
}

function metricBlock(name: MetricName, m: MetricComparison): string[] {
  const w = m.workload_level;
  const rows: string[][] = [
    ["", "real", "sim", "error", "% error"],
    ["mean", us(w.real_mean), us(w.sim_mean), signedUs(w.mean_error), pct(w.mean_percent_error)],
    ["p50", us(w.real_p50), us(w.sim_p50), signedUs(w.p50_error), pct(w.p50_percent_error)],
    ["p90", us(w.real_p90), us(w.sim_p90), signedUs(w.p90_error), pct(w.p90_percent_error)],
    ["p95", us(w.real_p95), us(w.sim_p95), signedUs(w.p95_error), pct(w.p95_percent_error)],
    ["p99", us(w.real_p99), us(w.sim_p99), signedUs(w.p99_error), pct(w.p99_percent_error)],
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const r = m.request_level;
  return [
    `${LABEL[name]} (µs, ${m.count} request${m.count === 1 ? "" : "s"})`,
    ...rows.map((row) => "  " + pad(row, widths)),
    `  MAPE ${pct(r.mape)}   Pearson r ${r.pearson_r.toFixed(4)}   bias ${r.bias_direction === "" ? "-" : r.bias_direction}   quality ${r.quality}`,
  ];
}

/** The report as text: counts, one block per metric, and the verdicts. */
export function renderCalibrationTable(report: CalibrationReport, details?: CalibrationDetails): string {
  const t = report.trace_info;
  const lines: string[] = ["=== Calibration: real vs simulated ==="];
  lines.push(
    `Requests: ${t.num_requests} (warm-up excluded ${t.warm_up_excluded}, matched ${t.matched_pairs}` +
      (details !== undefined
        ? `, unmatched real ${details.unmatchedReal}, unmatched sim ${details.unmatchedSim}`
        : "") +
      `), token mismatches ${t.token_mismatches}` +
      (t.itl_dropped !== undefined ? `, ITL dropped ${t.itl_dropped}` : ""),
  );
  if (details !== undefined) {
    const n = details.normalization;
    lines.push(
      `Normalization: warm-up ${n.warmUp} requests, RTT ${n.networkRttUs} µs, ` +
        (n.bandwidthMbps > 0 ? `bandwidth ${n.bandwidthMbps} Mbps` : "no transfer delay"),
    );
  }
  for (const name of ORDER) {
    const m = report.metrics[name];
    if (m === undefined) continue;
    lines.push("", ...metricBlock(name, m));
  }
  lines.push("");
  const tv = report.ttft_tolerance;
  if (tv !== undefined) {
    lines.push(`TTFT MAPE ${pct(tv.mape)} (threshold ${pct(tv.threshold)}): ${tv.within ? "WITHIN" : "EXCEEDS"}`);
  }
  const hr = report.hit_rate;
  if (hr !== undefined) {
    lines.push(
      `KV hit rate (source ${hr.source}): real ${hr.real_hit_rate.toFixed(4)}, sim ${hr.sim_hit_rate.toFixed(4)}, ` +
        `error ${hr.abs_error_pp.toFixed(2)} pp (tolerance ${hr.tolerance_pp.toFixed(2)} pp): ${hr.within ? "WITHIN" : "EXCEEDS"}`,
    );
  }
  const gp = report.goodput;
  if (gp !== undefined) {
    lines.push("Goodput (SLO attainment, real vs sim):");
    for (const [cls, c] of Object.entries(gp.per_class)) {
      const t = gp.targets[cls]!;
      const gated = [
        t.ttft_ms > 0 ? `TTFT ${t.ttft_ms} ms` : "",
        t.itl_ms > 0 ? `ITL ${t.itl_ms} ms` : "",
        t.e2e_ms > 0 ? `E2E ${t.e2e_ms} ms` : "",
      ]
        .filter((s) => s !== "")
        .join(", ");
      lines.push(
        `  ${cls} (${gated}; ${c.count} requests): real ${pct(c.real_slo_attainment)}, sim ${pct(c.sim_slo_attainment)}`,
      );
    }
  }
  return lines.join("\n") + "\n";
}

/** Counts, per-SLO-class and per-model breakdowns and warnings, on the logger (stderr). */
export function logCalibrationDetails(details: CalibrationDetails, logger: Logger): void {
  logger.info(
    `Matched requests: unmatched real ${details.unmatchedReal} (of which ${details.negativeLatency} with negative latency), unmatched sim ${details.unmatchedSim}`,
  );
  if (details.itlDroppedIds.length > 0) {
    const shown = details.itlDroppedIds.slice(0, 10).join(", ") + (details.itlDroppedIds.length > 10 ? ", …" : "");
    logger.warn(
      `ITL dropped for ${details.itlDroppedIds.length} request(s) whose chunk deltas are all negative (clock skew): ${shown}`,
    );
  }
  if (details.bySloClass.length > 0) {
    logger.info("Per-SLO-class calibration:");
    for (const b of details.bySloClass)
      logger.info(`  SLO=${b.key}: n=${b.n} TTFT-MAPE=${pct(b.ttftMape)} E2E-MAPE=${pct(b.e2eMape)}`);
  }
  if (details.byModel.length > 0) {
    logger.info("Per-model calibration:");
    for (const b of details.byModel)
      logger.info(`  model=${b.key}: n=${b.n} TTFT-MAPE=${pct(b.ttftMape)} E2E-MAPE=${pct(b.e2eMape)}`);
  }
  for (const note of details.notes) logger.warn(note);
}
