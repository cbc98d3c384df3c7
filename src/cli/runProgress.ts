// Progress of `blis run` on stderr (docs/behavior.md "Progress"). On a terminal a bar appears once
// a run has taken about 2 s; elsewhere nothing, unless --progress asks for plain lines. Wall-clock
// time decides only what stderr shows, never what is simulated.

import cliProgress from "cli-progress";
import type { ProgressHook, ProgressSnapshot } from "../sim/progress.js";

/** Simulated time between progress callbacks: frequent enough for a smooth bar, cheap per call. */
const GRID_US = 10_000;
/** A run shorter than this shows nothing (scripts and quick runs stay clean). */
const QUIET_MS = 2000;

export type RunProgressMode = "auto" | "on" | "off";

export interface RunProgress {
  hook: ProgressHook | undefined;
  stop(): void;
}

/** Fraction done: requests finished of the known cap, else simulated time of a finite horizon. */
export function fractionDone(s: ProgressSnapshot): number {
  if (s.final) return 1;
  if (s.requestCap > 0) return Math.min(1, (s.completed + s.droppedUnservable) / s.requestCap);
  return Number.isFinite(s.horizonUs) && s.horizonUs > 0 ? Math.min(1, s.clockUs / s.horizonUs) : 0;
}

function etaText(fraction: number, elapsedMs: number): string {
  if (fraction <= 0 || fraction >= 1) return fraction >= 1 ? "0s" : "?";
  const s = Math.round(((1 - fraction) * elapsedMs) / fraction / 1000);
  return s >= 60 ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s` : `${s}s`;
}

/**
 * The fields shown, as text: simulated seconds, requests done, rate in requests per wall second,
 * ETA (`eta_text`: the bar library reserves `eta`).
 */
export function progressFields(s: ProgressSnapshot, elapsedMs: number): Record<string, string> {
  const done = s.completed + s.droppedUnservable;
  return {
    sim: (s.clockUs / 1e6).toFixed(1),
    done: s.requestCap > 0 ? `${done}/${s.requestCap}` : String(done),
    rate: elapsedMs > 0 ? String(Math.round((done * 1000) / elapsedMs)) : "0",
    eta_text: etaText(fractionDone(s), elapsedMs),
  };
}

export function progressLine(s: ProgressSnapshot, elapsedMs: number): string {
  const f = progressFields(s, elapsedMs);
  const pct = Math.floor(fractionDone(s) * 100);
  return `run: ${pct}% | simulated ${f["sim"]} s | ${f["done"]} requests done | ${f["rate"]} req/s | ETA ${f["eta_text"]}`;
}

/**
 * The hook for one run. `stream` is stderr when it is a terminal (bar), else undefined (lines
 * through `line`, only when the mode is "on").
 */
export function createRunProgress(
  mode: RunProgressMode,
  stream: NodeJS.WriteStream | undefined,
  line: (s: string) => void,
): RunProgress {
  const tty = stream !== undefined && stream.isTTY === true;
  if (mode === "off" || (mode === "auto" && !tty)) return { hook: undefined, stop() {} };
  const t0 = Date.now();
  let bar: cliProgress.SingleBar | null = null;
  let lastLine = 0;
  const show = (s: ProgressSnapshot): void => {
    const now = Date.now();
    const elapsed = now - t0;
    if (!s.final && mode === "auto" && elapsed < QUIET_MS) return;
    if (tty) {
      if (bar === null) {
        if (s.final) return; // finished before the bar was worth showing
        bar = new cliProgress.SingleBar(
          {
            stream,
            format: "run |{bar}| {percentage}% | sim {sim} s | {done} done | {rate} req/s | ETA {eta_text}",
            hideCursor: false,
            fps: 5,
          },
          cliProgress.Presets.shades_classic,
        );
        bar.start(100, Math.floor(fractionDone(s) * 100), progressFields(s, elapsed));
      }
      bar.update(Math.floor(fractionDone(s) * 100), progressFields(s, elapsed));
      return;
    }
    if (s.final || now - lastLine >= 1000) {
      lastLine = now;
      line(progressLine(s, elapsed));
    }
  };
  return {
    hook: { intervalUs: GRID_US, onProgress: show },
    stop() {
      if (bar !== null) bar.stop();
    },
  };
}
