// Non-negative least squares on normal equations with a ridge pull toward a prior (docs/
// calibration.md "Fit"). Parameters the data cannot tell apart (a per-step constant and the
// weight-loading term of a single model, say) stay near the prior instead of wandering.

export interface NormalEquations {
  /** Gram matrix AᵀA, row-major n×n. */
  G: Float64Array;
  /** Aᵀy. */
  h: Float64Array;
}

export function emptyNormalEquations(n: number): NormalEquations {
  return { G: new Float64Array(n * n), h: new Float64Array(n) };
}

/** Adds w·(x xᵀ) and w·x·y. */
export function addRow(ne: NormalEquations, x: ArrayLike<number>, y: number, w: number): void {
  const n = ne.h.length;
  for (let i = 0; i < n; i++) {
    const xi = x[i]!;
    if (xi === 0) continue;
    const wxi = w * xi;
    ne.h[i] = ne.h[i]! + wxi * y;
    const o = i * n;
    for (let j = 0; j < n; j++) ne.G[o + j] = ne.G[o + j]! + wxi * x[j]!;
  }
}

export function addInto(dst: NormalEquations, src: NormalEquations, weight = 1): void {
  for (let i = 0; i < dst.G.length; i++) dst.G[i] = dst.G[i]! + weight * src.G[i]!;
  for (let i = 0; i < dst.h.length; i++) dst.h[i] = dst.h[i]! + weight * src.h[i]!;
}

/** A quadratic pull λ‖S(θ − center)‖² (S: unit column scaling). */
export interface Pull {
  center: ArrayLike<number>;
  lambda: number;
}

/**
 * min ‖Aθ − y‖² + Σ pulls over θ ≥ 0, with θ_j fixed at `base`_j outside `free`. Projected
 * Gauss-Seidel; exact for this convex problem.
 */
export function solveNnls(
  ne: NormalEquations,
  base: ArrayLike<number>,
  free: readonly number[],
  pulls: readonly Pull[],
): Float64Array {
  const n = ne.h.length;
  const theta = Float64Array.from({ length: n }, (_, i) => base[i]!);
  const m = free.length;
  const scale = free.map((j) => Math.sqrt(Math.max(ne.G[j * n + j]!, 0)) || 1);
  // Reduced system in scaled variables u_k = scale_k · θ_free[k].
  const G = new Float64Array(m * m);
  const h = new Float64Array(m);
  for (let a = 0; a < m; a++) {
    const ja = free[a]!;
    let rhs = ne.h[ja]!;
    for (let j = 0; j < n; j++) if (!free.includes(j)) rhs -= ne.G[ja * n + j]! * theta[j]!;
    h[a] = rhs / scale[a]!;
    for (let b = 0; b < m; b++) G[a * m + b] = ne.G[ja * n + free[b]!]! / (scale[a]! * scale[b]!);
    for (const p of pulls) {
      h[a] = h[a]! + p.lambda * p.center[ja]! * scale[a]!;
      G[a * m + a] = G[a * m + a]! + p.lambda;
    }
  }
  const u = free.map((j, k) => base[j]! * scale[k]!);
  for (let sweep = 0; sweep < 20000; sweep++) {
    let change = 0;
    for (let a = 0; a < m; a++) {
      let r = h[a]!;
      for (let b = 0; b < m; b++) if (b !== a) r -= G[a * m + b]! * u[b]!;
      const next = Math.max(0, r / G[a * m + a]!);
      change = Math.max(change, Math.abs(next - u[a]!) / (Math.abs(u[a]!) + 1e-12));
      u[a] = next;
    }
    if (change < 1e-12) break;
  }
  free.forEach((j, k) => (theta[j] = u[k]! / scale[k]!));
  return theta;
}
