// Shared test helpers: repository paths and a capturing logger.

import { fileURLToPath } from "node:url";
import { Logger } from "../../src/util/log.js";

/** Repository root (tests run from dist/test/workload/). */
export const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
export const EXAMPLES = `${ROOT}examples/`;
export const FIXTURES = `${ROOT}test/fixtures/workload/`;

export function capturingLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  return { logger: new Logger("debug", (line) => lines.push(line)), lines };
}

/** Mean, variance (unbiased) and fourth central moment of a sample. */
export function moments(xs: ArrayLike<number>): { mean: number; variance: number; m4: number; n: number } {
  const n = xs.length;
  let sum = 0;
  for (let i = 0; i < n; i++) sum += xs[i]!;
  const mean = sum / n;
  let s2 = 0;
  let s4 = 0;
  for (let i = 0; i < n; i++) {
    const d = xs[i]! - mean;
    s2 += d * d;
    s4 += d * d * d * d;
  }
  return { mean, variance: s2 / (n - 1), m4: s4 / n, n };
}

/** Asserts the sample mean and variance agree with the analytic values within k standard errors. */
export function assertMoments(xs: ArrayLike<number>, mean: number, variance: number, k = 5): void {
  const m = moments(xs);
  const seMean = Math.sqrt(m.variance / m.n);
  const seVar = Math.sqrt(Math.max(m.m4 - m.variance * m.variance, 0) / m.n);
  if (Math.abs(m.mean - mean) > k * seMean + 1e-9) {
    throw new Error(`mean ${m.mean} differs from ${mean} by more than ${k} SE (${seMean})`);
  }
  if (Math.abs(m.variance - variance) > k * seVar + 1e-9) {
    throw new Error(`variance ${m.variance} differs from ${variance} by more than ${k} SE (${seVar})`);
  }
}
