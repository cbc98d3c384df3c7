import { test } from "node:test";
import assert from "node:assert/strict";
import { GaussianProcess, correlation, fitSurrogate } from "../../src/optimize/index.js";

/**
 * Hand-computed posterior on three points.
 *
 * Kernel: squared exponential, σ_f² = 1, no noise, length scale ℓ = 1/sqrt(2 ln 2), so that
 *   k(x, x') = exp(-(x - x')² / (2ℓ²)) = exp(-(x - x')² ln 2) = 2^-(x - x')².
 * Data: X = [0, 1, 2], y = [1, -1, 2]. Test point x* = 3.
 *
 *   K  = [[1, 1/2, 1/16], [1/2, 1, 1/2], [1/16, 1/2, 1]]        (2^-1 = 1/2, 2^-4 = 1/16)
 *   det K = 1·(1 - 1/4) - 1/2·(1/2 - 1/32) + 1/16·(1/4 - 1/16)
 *         = 3/4 - 15/64 + 3/256 = (192 - 60 + 3)/256 = 135/256
 *   adj K = [[3/4, -15/32, 3/16], [-15/32, 255/256, -15/32], [3/16, -15/32, 3/4]]
 *           (cofactors: 1 - 1/4; -(1/2 - 1/32); 1/4 - 1/16; 1 - 1/256; ...; K is symmetric)
 *   K⁻¹ = (256/135) adj K
 *
 *   adj K · y = [3/4 + 15/32 + 3/8, -15/32 - 255/256 - 15/16, 3/16 + 15/32 + 3/2]
 *             = [51/32, -615/256, 69/32]
 *   α = K⁻¹ y = (256/135)·[51/32, -615/256, 69/32] = [408/135, -615/135, 552/135] = [136/45, -41/9, 184/45]
 *
 *   k* = [k(3,0), k(3,1), k(3,2)] = [2^-9, 2^-4, 2^-1] = [1/512, 1/16, 1/2]
 *   mean = k*ᵀα = 136/(45·512) - 41/(9·16) + 184/(45·2)
 *        = (136 - 6560 + 47104)/23040 = 40680/23040 = 113/64 = 1.765625
 *
 *   adj K · k* = [3/2048 - 15/512 + 3/32, -15/16384 + 255/4096 - 15/64, 3/8192 - 15/512 + 3/8]
 *              = [135/2048, -2835/16384, 2835/8192]
 *   K⁻¹k* = (256/135)·[...] = [1/8, -21/64, 21/32]
 *   variance = k(3,3) - k*ᵀK⁻¹k* = 1 - (1/4096 - 21/1024 + 21/64)
 *            = 1 - (1 - 84 + 1344)/4096 = 1 - 1261/4096 = 2835/4096 = 0.692138671875
 *
 *   log marginal likelihood = -½ yᵀα - ½ log det K - (3/2) log 2π,
 *   yᵀα = 136/45 + 41/9 + 368/45 = (136 + 205 + 368)/45 = 709/45.
 */
test("GP posterior mean and variance on three points match the hand computation", () => {
  const ell = 1 / Math.sqrt(2 * Math.LN2);
  const gp = new GaussianProcess([[0], [1], [2]], [1, -1, 2], {
    kernel: "se",
    lengthScales: [ell],
    signalVariance: 1,
    noiseVariance: 0,
  });
  const p = gp.predict([3]);
  assert.ok(Math.abs(p.mean - 113 / 64) < 1e-9, `mean ${p.mean}`);
  assert.ok(Math.abs(p.variance - 2835 / 4096) < 1e-9, `variance ${p.variance}`);
  const lml = -0.5 * (709 / 45) - 0.5 * Math.log(135 / 256) - 1.5 * Math.log(2 * Math.PI);
  assert.ok(Math.abs(gp.logMarginalLikelihood() - lml) < 1e-9, `lml ${gp.logMarginalLikelihood()} vs ${lml}`);
  assert.equal(gp.jitter, 0);
  // Without noise the posterior interpolates the data, with zero variance there.
  for (const [x, y] of [
    [0, 1],
    [1, -1],
    [2, 2],
  ] as const) {
    const q = gp.predict([x]);
    assert.ok(Math.abs(q.mean - y) < 1e-9);
    assert.ok(q.variance < 1e-9);
  }
});

test("GP with noise: one point by hand", () => {
  // K = σ_f² + σ_n² = 2 + 0.5; k* = 2·exp(-0.5·(0.5/0.25)²) = 2e^-2.
  // mean = k*·y/K = 2e^-2·3/2.5; variance = σ_f² - k*²/K = 2 - 4e^-4/2.5.
  const gp = new GaussianProcess([[0]], [3], {
    kernel: "se",
    lengthScales: [0.25],
    signalVariance: 2,
    noiseVariance: 0.5,
  });
  const p = gp.predict([0.5]);
  assert.ok(Math.abs(p.mean - (2 * Math.exp(-2) * 3) / 2.5) < 1e-12);
  assert.ok(Math.abs(p.variance - (2 - (4 * Math.exp(-4)) / 2.5)) < 1e-12);
});

test("Matérn 5/2 correlation: (1 + √5 r + 5r²/3) e^(-√5 r)", () => {
  assert.equal(correlation("matern52", 0), 1);
  const r = 0.7;
  const want = (1 + Math.sqrt(5) * r + (5 * r * r) / 3) * Math.exp(-Math.sqrt(5) * r);
  assert.ok(Math.abs(correlation("matern52", r * r) - want) < 1e-15);
  assert.ok(Math.abs(correlation("se", r * r) - Math.exp(-0.5 * r * r)) < 1e-15);
});

test("fitSurrogate: standardizes, picks hyperparameters by likelihood, and predicts a smooth function", () => {
  const f = (x: number): number => 100 + 20 * Math.sin(6 * x);
  const X = Array.from({ length: 12 }, (_, i) => [i / 11]);
  const y = X.map(([x]) => f(x!));
  const s = fitSurrogate(X, y, { kernel: "matern52" });
  assert.ok(Math.abs(s.z.reduce((a, b) => a + b, 0)) < 1e-9, "standardized targets have mean 0");
  assert.ok(s.gp.hyper.noiseVariance / s.gp.hyper.signalVariance <= 1e-3, "noise-free data gets a small noise ratio");
  for (const x of [0.05, 0.33, 0.61, 0.97]) {
    const p = s.gp.predict([x]);
    const pred = s.yMean + s.yStd * p.mean;
    assert.ok(Math.abs(pred - f(x)) < 1, `prediction at ${x}: ${pred} vs ${f(x)}`);
  }
  // Every grid candidate's likelihood is at most the chosen one's.
  const other = new GaussianProcess(X, s.z, {
    kernel: "matern52",
    lengthScales: [0.05],
    signalVariance: 1,
    noiseVariance: 0.5,
  });
  assert.ok(other.logMarginalLikelihood() <= s.logLik + 1e-9);
});

test("fitSurrogate with groups: an irrelevant feature gets a longer length scale than the relevant one", () => {
  const X: number[][] = [];
  for (let i = 0; i < 5; i++) for (let j = 0; j < 5; j++) X.push([i / 4, ((j * 3 + i) % 5) / 4]);
  const y = X.map(([a]) => Math.sin(5 * a!));
  const s = fitSurrogate(X, y, { groups: [0, 1] });
  const [relevant, irrelevant] = s.gp.hyper.lengthScales;
  assert.ok(irrelevant! > relevant!, `ℓ relevant ${relevant}, irrelevant ${irrelevant}`);
});
