// One measured kernel-latency curve over a work axis (docs/latency.md "Interpolation and
// extrapolation"): exact on grid points, log–log linear between neighbours, and beyond the last
// point scaled as the work grows (t ∝ x^p), from that point. Below the first point the first
// point's time holds: a kernel smaller than the smallest one measured is not assumed faster.

/**
 * Less work never takes longer than more: the smaller problem can always run the larger one's
 * kernel (padded). So a point slower than a later point is a disturbed measurement and takes the
 * later point's time: the lower monotone envelope, a running minimum from the right. Where the
 * measurements already rise, nothing changes.
 */
export function monotoneEnvelope(ys: readonly number[]): Float64Array {
  const out = new Float64Array(ys.length);
  let min = Infinity;
  for (let i = ys.length - 1; i >= 0; i--) {
    min = Math.min(min, ys[i]!);
    out[i] = min;
  }
  return out;
}

export class Curve {
  readonly xs: Float64Array;
  readonly ys: Float64Array;
  private readonly lx: Float64Array;
  private readonly ly: Float64Array;
  /** Growth exponent beyond the last point: 1 for work linear in x, 2 for causal attention in the prompt. */
  readonly exponent: number;

  /** Called once, the first time a query lies beyond the last point (the run's extrapolation note). */
  private beyond: (() => void) | undefined;

  /** `xs` strictly increasing and positive; `ys` in µs, positive. */
  constructor(xs: readonly number[], ys: readonly number[], exponent: number, beyond?: () => void) {
    if (xs.length === 0 || xs.length !== ys.length) throw new Error("kernel curve: empty or ragged");
    this.xs = Float64Array.from(xs);
    this.ys = monotoneEnvelope(ys);
    this.lx = this.xs.map(Math.log);
    this.ly = this.ys.map(Math.log);
    this.exponent = exponent;
    this.beyond = beyond;
  }

  get first(): number {
    return this.xs[0]!;
  }

  get last(): number {
    return this.xs[this.xs.length - 1]!;
  }

  private noteBeyond(): void {
    const f = this.beyond!;
    this.beyond = undefined;
    f();
  }

  /** µs at x > 0. */
  at(x: number): number {
    const xs = this.xs;
    const n = xs.length;
    if (x <= xs[0]!) return this.ys[0]!;
    if (x >= xs[n - 1]!) {
      const y = this.ys[n - 1]!;
      if (x === xs[n - 1]!) return y;
      if (this.beyond !== undefined) this.noteBeyond();
      return y * Math.pow(x / xs[n - 1]!, this.exponent);
    }
    let lo = 0;
    let hi = n - 1;
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (xs[mid]! <= x) lo = mid;
      else hi = mid;
    }
    if (x === xs[lo]!) return this.ys[lo]!;
    const f = (Math.log(x) - this.lx[lo]!) / (this.lx[hi]! - this.lx[lo]!);
    return Math.exp(this.ly[lo]! + f * (this.ly[hi]! - this.ly[lo]!));
  }
}

/**
 * Log–log interpolation between two curves measured at a < b along a second axis (for example
 * batch size), evaluated at v; beyond b the b-curve scales as (v/b)^p, below a the a-curve holds.
 */
export function between(ta: number, tb: number, a: number, b: number, v: number, exponent: number): number {
  if (v <= a) return ta;
  if (v >= b) return v === b ? tb : tb * Math.pow(v / b, exponent);
  const f = Math.log(v / a) / Math.log(b / a);
  return Math.exp(Math.log(ta) + f * (Math.log(tb) - Math.log(ta)));
}

/** Index of the last grid value ≤ v (0 when v is below the grid). */
export function floorIndex(grid: ArrayLike<number>, v: number): number {
  let lo = 0;
  let hi = grid.length - 1;
  if (v >= grid[hi]!) return hi;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (grid[mid]! <= v) lo = mid;
    else hi = mid;
  }
  return lo;
}
