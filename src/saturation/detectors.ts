// The three post-hoc saturation detectors (docs/saturation.md "Detectors"). Each observes the
// arrival/completion stream of a finished run and gives a verdict after every event.

export type Level = "STABLE" | "BACKLOGGED" | "OVERLOADED";

/** Severity order for the final vote's ties. */
export const SEVERITY: Record<Level, number> = { STABLE: 0, BACKLOGGED: 1, OVERLOADED: 2 };

export interface Verdict {
  level: Level;
  score: number;
  confidence: number;
  /** Named signals, in a fixed order per detector. */
  signals: Record<string, number>;
}

export interface Detector {
  readonly name: DetectorName;
  arrival(time: number): void;
  /** A completion at `time` with end-to-end latency `latencyMs`. */
  completion(time: number, latencyMs: number): void;
  verdict(): Verdict;
}

export const DETECTOR_NAMES = ["composite", "threshold", "backlog-drift"] as const;
export type DetectorName = (typeof DETECTOR_NAMES)[number];

/** Mean latency against a fixed threshold. */
export class ThresholdDetector implements Detector {
  readonly name = "threshold";
  private n = 0;
  private sum = 0;
  constructor(private readonly thresholdMs: number) {}

  arrival(): void {}
  completion(_time: number, latencyMs: number): void {
    this.n++;
    this.sum += latencyMs;
  }
  verdict(): Verdict {
    const t = this.thresholdMs;
    if (this.n === 0) return { level: "STABLE", score: 0, confidence: 0, signals: { mean_e2e: 0, threshold: t } };
    const m = this.sum / this.n;
    const confidence = 1 - 1 / Math.sqrt(this.n + 1);
    const signals = { mean_e2e: m, threshold: t };
    if (m < t) return { level: "STABLE", score: (0.5 * m) / t, confidence, signals };
    return { level: "OVERLOADED", score: 0.75 + Math.min(0.25, (m - t) / t / 4), confidence, signals };
  }
}

/** Completion deficit and a monotone latency trend, against a 1/√arrivals noise floor. */
export class CompositeDetector implements Detector {
  readonly name = "composite";
  private arrivals = 0;
  /** prefix[k] = sum of the first k latencies in completion order. */
  private prefix = [0];

  arrival(): void {
    this.arrivals++;
  }
  completion(_time: number, latencyMs: number): void {
    this.prefix.push(this.prefix[this.prefix.length - 1]! + latencyMs);
  }

  /** Mean of latencies [a, b) in completion order. */
  private mean(a: number, b: number): number {
    return (this.prefix[b]! - this.prefix[a]!) / (b - a);
  }

  private quartilesIncrease(n: number): boolean {
    const q = Math.floor(n / 4);
    const means = [this.mean(0, q), this.mean(q, 2 * q), this.mean(2 * q, 3 * q), this.mean(3 * q, n)];
    return means[0]! < means[1]! && means[1]! < means[2]! && means[2]! < means[3]!;
  }

  verdict(): Verdict {
    const a = this.arrivals;
    const n = this.prefix.length - 1;
    const names = ["rate_deficit", "latency_trend_raw", "latency_trend", "quartile_monotone", "noise_floor"];
    if (a === 0)
      return { level: "STABLE", score: 0, confidence: 0, signals: Object.fromEntries(names.map((k) => [k, 0])) };
    const rateDeficit = Math.max(0, 1 - n / a);
    let raw = 0;
    if (n >= 2) {
      const h = Math.floor(n / 2);
      const first = this.mean(0, h);
      raw = first === 0 ? 0 : Math.max(0, (this.mean(h, n) - first) / first);
    }
    const monotone = n >= 20 && this.quartilesIncrease(n);
    const lt = monotone ? raw : 0;
    const score = Math.max(rateDeficit, Math.min(lt, 1));
    const noise = 1 / Math.sqrt(a);
    const level: Level = score < noise ? "STABLE" : lt > noise ? "OVERLOADED" : "BACKLOGGED";
    return {
      level,
      score,
      confidence: Math.min(1, a / 20),
      signals: {
        rate_deficit: rateDeficit,
        latency_trend_raw: Math.min(raw, 1),
        latency_trend: lt,
        quartile_monotone: monotone ? 1 : 0,
        noise_floor: noise,
      },
    };
  }
}

/**
 * The least-squares slope of in-flight requests per time window. Windows before the current one
 * are final; skipped windows repeat the previous value; the sums add them in closed form.
 */
export class BacklogDriftDetector implements Detector {
  readonly name = "backlog-drift";
  private arrivals = 0;
  private completions = 0;
  /** Index (from 0) of the current bucket in the series; -1 before the first event. */
  private cur = -1;
  private curBucket = 0;
  private curValue = 0;
  /** Sums over the final points: count, Σx, Σy, Σxy, Σx². */
  private n = 0;
  private sx = 0;
  private sy = 0;
  private sxy = 0;
  private sxx = 0;
  private readonly windowUs: number;
  constructor(windowSec: number) {
    this.windowUs = windowSec * 1e6;
  }

  arrival(time: number): void {
    this.arrivals++;
    this.observe(time);
  }
  completion(time: number): void {
    this.completions++;
    this.observe(time);
  }

  private observe(time: number): void {
    const bucket = Math.floor(time / this.windowUs);
    if (this.cur < 0) {
      this.cur = 0;
      this.curBucket = bucket;
    } else if (bucket > this.curBucket) {
      // The current point is final, and so are the skipped buckets that repeat it.
      this.addRun(this.cur, this.cur + (bucket - this.curBucket) - 1, this.curValue);
      this.cur += bucket - this.curBucket;
      this.curBucket = bucket;
    }
    this.curValue = this.arrivals - this.completions;
  }

  /** Adds points x = i0..i1, all with value v. */
  private addRun(i0: number, i1: number, v: number): void {
    const k = i1 - i0 + 1;
    const sx = ((i0 + i1) * k) / 2;
    const sq = (m: number): number => (m * (m + 1) * (2 * m + 1)) / 6;
    this.n += k;
    this.sx += sx;
    this.sy += v * k;
    this.sxy += v * sx;
    this.sxx += sq(i1) - (i0 > 0 ? sq(i0 - 1) : 0);
  }

  private slope(): number {
    const n = this.n + 1;
    if (n < 2) return 0;
    const x = this.cur;
    const v = this.curValue;
    const sx = this.sx + x;
    const sy = this.sy + v;
    const sxy = this.sxy + x * v;
    const sxx = this.sxx + x * x;
    const den = n * sxx - sx * sx;
    return den === 0 ? 0 : (n * sxy - sx * sy) / den;
  }

  verdict(): Verdict {
    const a = this.arrivals;
    const slope = this.cur < 0 ? 0 : this.slope();
    const noise = a > 0 ? 1 / Math.sqrt(a) : 0;
    const level: Level = a === 0 || slope <= noise ? "STABLE" : slope <= 3 * noise ? "BACKLOGGED" : "OVERLOADED";
    return {
      level,
      score: a === 0 ? 0 : Math.min(1, Math.max(0, slope) / (3 * noise)),
      confidence: Math.min(1, a / 20),
      signals: {
        in_flight: a - this.completions,
        arrivals: a,
        completions: this.completions,
        running_slope: slope,
        noise_floor: noise,
      },
    };
  }
}
