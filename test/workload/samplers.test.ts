import assert from "node:assert/strict";
import { test } from "node:test";
import { Rng } from "../../src/engine/rng.js";
import {
  buildArrivalSampler,
  buildLengthSampler,
  gammaFn,
  generateAll,
  lnGamma,
  makeClient,
  makeSpec,
  ReasonRatioSampler,
  weibullCv,
  weibullShapeFromCv,
  type DistSpec,
} from "../../src/workload/index.js";
import { assertMoments, capturingLogger, moments } from "./helpers.js";

const N = 200_000;

function draw(d: DistSpec, n = N, seed = 7n): Float64Array {
  const s = buildLengthSampler(d);
  const rng = new Rng(seed);
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = s.sample(rng);
  return out;
}
const d = (type: string, params: Record<string, number>): DistSpec => ({ type, params, file: "" });

test("gamma function reference values", () => {
  assert.ok(Math.abs(gammaFn(5) - 24) < 1e-10);
  assert.ok(Math.abs(gammaFn(0.5) - Math.sqrt(Math.PI)) < 1e-12);
  assert.ok(Math.abs(gammaFn(1.5) - Math.sqrt(Math.PI) / 2) < 1e-12);
  assert.ok(Math.abs(lnGamma(100) - 359.1342053695754) < 1e-9);
  assert.ok(Math.abs(gammaFn(-0.5) + 2 * Math.sqrt(Math.PI)) < 1e-10);
});

test("gaussian: mean and variance (clamping negligible), rounding, floor", () => {
  const xs = draw(d("gaussian", { mean: 500, std_dev: 100, min: 1, max: 10000 }));
  for (const x of xs) assert.equal(x, Math.round(x));
  assertMoments(xs, 500, 100 * 100 + 1 / 12);
});

test("gaussian clamps to [min, max] and min = max returns min without floor", () => {
  const xs = draw(d("gaussian", { mean: 100, std_dev: 500, min: 50.9, max: 150.2 }), 20000);
  for (const x of xs) assert.ok(x >= 50 && x <= 150, String(x));
  assert.ok(xs.includes(50) && xs.includes(150));
  const zero = buildLengthSampler(d("gaussian", { mean: 0, std_dev: 0, min: 0, max: 0 }));
  assert.equal(zero.sample(new Rng(1n)), 0);
  // min > max: every sample is max.
  const inverted = draw(d("gaussian", { mean: 10, std_dev: 5, min: 20, max: 8 }), 100);
  for (const x of inverted) assert.equal(x, 8);
});

test("exponential: mean and variance", () => {
  const xs = draw(d("exponential", { mean: 200 }));
  assertMoments(xs, 200, 200 * 200);
  for (const x of xs) assert.ok(x >= 1);
});

test("pareto_lognormal: mixture mean and variance", () => {
  const alpha = 5,
    xm = 100,
    mu = 5,
    sigma = 0.5,
    w = 0.3;
  const pMean = (alpha * xm) / (alpha - 1);
  const pM2 = (alpha * xm * xm) / (alpha - 2);
  const lMean = Math.exp(mu + (sigma * sigma) / 2);
  const lM2 = Math.exp(2 * mu + 2 * sigma * sigma);
  const mean = w * pMean + (1 - w) * lMean;
  const variance = w * pM2 + (1 - w) * lM2 - mean * mean;
  const xs = draw(d("pareto_lognormal", { alpha, xm, mu, sigma, mix_weight: w }), 400_000);
  assertMoments(xs, mean, variance + 1 / 12);
});

test("constant: trunc, floor 1, no draw", () => {
  assert.equal(buildLengthSampler(d("constant", { value: 12.9 })).sample(new Rng(1n)), 12);
  assert.equal(buildLengthSampler(d("constant", { value: 0 })).sample(new Rng(1n)), 1);
  const rng = new Rng(3n);
  const before = new Rng(3n).uint32();
  buildLengthSampler(d("constant", { value: 5 })).sample(rng);
  assert.equal(rng.uint32(), before);
});

test("empirical: mean and variance; weights need not sum to 1; zero weights skipped", () => {
  const xs = draw(d("empirical", { "300": 2, "100": 2, "200": 4, "999": 0 }));
  assertMoments(xs, 200, 5000);
  assert.ok(!xs.includes(999));
  // One bin: no draw.
  assert.equal(buildLengthSampler(d("empirical", { "0": 1 })).sample(new Rng(1n)), 0);
});

test("empirical build errors", () => {
  assert.throws(() => buildLengthSampler(d("empirical", {})), /requires a file path or inline params/);
  assert.throws(() => buildLengthSampler({ type: "empirical", params: {}, file: "x.json" }), /has no valid bins/);
  assert.throws(
    () => buildLengthSampler(d("empirical", { "12abc": 1 })),
    /empirical PDF key "12abc" is not an integer: /,
  );
  assert.throws(
    () => buildLengthSampler(d("gaussian", { mean: 1, std_dev: 1, min: 1 })),
    /distribution requires parameter "max"/,
  );
  assert.throws(() => buildLengthSampler(d("zipf", {})), /unknown distribution type "zipf"/);
});

test("reason ratio: percentage clamped to [0, 1]", () => {
  const r = (dist: DistSpec) => new ReasonRatioSampler(buildLengthSampler(dist)).sample(new Rng(1n));
  assert.equal(r(d("constant", { value: 0 })), 0.01);
  assert.equal(r(d("gaussian", { mean: 0, std_dev: 0, min: 0, max: 0 })), 0);
  assert.equal(r(d("constant", { value: 250 })), 1);
  assert.equal(r(d("constant", { value: 40 })), 0.4);
});

function iats(process: string, cv: number | undefined, ratePerSec: number, n = N, seed = 11n): Float64Array {
  const s = buildArrivalSampler(process, cv, ratePerSec / 1e6, 'client "t"');
  const rng = new Rng(seed);
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = s.next(rng);
  return out;
}

function cvOf(xs: Float64Array): { mean: number; cv: number } {
  const m = moments(xs);
  return { mean: m.mean, cv: Math.sqrt(m.variance) / m.mean };
}

test("poisson IATs: mean 1/λ, cv 1, integers ≥ 1", () => {
  const xs = iats("poisson", undefined, 10);
  for (const x of xs.subarray(0, 1000)) assert.ok(Number.isInteger(x) && x >= 1);
  const { mean, cv } = cvOf(xs);
  assert.ok(Math.abs(mean / 100_000 - 1) < 0.02, String(mean));
  assert.ok(Math.abs(cv - 1) < 0.02, String(cv));
});

test("gamma IATs: cv of 0.5, 2 at 1 req/s (truncation negligible)", () => {
  for (const target of [0.5, 2]) {
    const { mean, cv } = cvOf(iats("gamma", target, 1));
    assert.ok(Math.abs(mean / 1e6 - 1) < 0.03, `cv ${target}: mean ${mean}`);
    assert.ok(Math.abs(cv / target - 1) < 0.05, `cv ${target}: got ${cv}`);
  }
});

test("weibull IATs: cv of 0.5, 1.5, 3 at 1 req/s", () => {
  for (const target of [0.5, 1.5, 3]) {
    const { mean, cv } = cvOf(iats("weibull", target, 1, 400_000));
    assert.ok(Math.abs(mean / 1e6 - 1) < 0.03, `cv ${target}: mean ${mean}`);
    assert.ok(Math.abs(cv / target - 1) < 0.06, `cv ${target}: got ${cv}`);
  }
});

/** Regularized lower incomplete gamma P(k, x) by its series (small x). */
function lowerGammaP(k: number, x: number): number {
  let term = 1 / k;
  let sum = term;
  for (let n = 1; n < 200; n++) {
    term *= x / (k + n);
    sum += term;
  }
  return Math.exp(k * Math.log(x) - x - lnGamma(k)) * sum;
}

test("gamma cv 3.5 at 100 req/s: about 40% of IATs clamp to 1 tick (truncated distribution)", () => {
  const xs = iats("gamma", 3.5, 100);
  const k = 1 / 3.5 ** 2;
  const theta = 3.5 ** 2 / 1e-4;
  // IAT = 1 exactly when the draw is below 2 (clamp below 1, truncation in [1, 2)).
  const p = lowerGammaP(k, 2 / theta);
  let ones = 0;
  for (const x of xs) if (x === 1) ones++;
  const frac = ones / xs.length;
  const se = Math.sqrt((p * (1 - p)) / xs.length);
  assert.ok(p > 0.38 && p < 0.46, `analytic ${p}`);
  assert.ok(Math.abs(frac - p) < 5 * se, `observed ${frac}, expected ${p}`);
  const { mean } = cvOf(xs);
  assert.ok(Math.abs(mean / 10_000 - 1) < 0.05, String(mean));
});

test("gamma with cv > 10 falls back to poisson with a warning", () => {
  const { logger, lines } = capturingLogger();
  const s = buildArrivalSampler("gamma", 11, 1e-6, 'client "x"', logger);
  assert.equal(s.constructor.name, "PoissonArrival");
  assert.equal(lines.length, 1);
  assert.match(lines[0]!, /poisson/);
});

test("weibull shape and scale reference values", () => {
  const refs: [number, number, number][] = [
    [0.5, 2.0999, 1.1291],
    [1, 0.99937, 0.99973],
    [1.5, 0.68459, 0.77302],
    [2, 0.54283, 0.57547],
    [3.5, 0.37534, 0.24993],
    [10.4, 0.22995, 0.02432],
  ];
  for (const [cv, shape, scaleOverMean] of refs) {
    const r = weibullShapeFromCv(cv);
    assert.ok(r.converged);
    assert.ok(Math.abs(r.shape / shape - 1) < 2e-4, `cv ${cv}: shape ${r.shape} vs ${shape}`);
    const ratio = 1 / gammaFn(1 + 1 / r.shape);
    assert.ok(Math.abs(ratio / scaleOverMean - 1) < 5e-4, `cv ${cv}: scale/mean ${ratio} vs ${scaleOverMean}`);
    assert.ok(Math.abs(weibullCv(r.shape) - cv) < 0.001);
  }
  const low = weibullShapeFromCv(0.005);
  assert.equal(low.converged, false);
});

test("weibull non-convergence is logged", () => {
  const { logger, lines } = capturingLogger();
  buildArrivalSampler("weibull", 0.005, 1e-6, 'client "w"', logger);
  assert.match(lines.join("\n"), /did not converge/);
});

function constantArrivals(rate: number, n: number): number[] {
  const spec = makeSpec({
    aggregate_rate: rate,
    num_requests: n,
    clients: [
      makeClient({
        rate_fraction: 1,
        arrival: { process: "constant" },
        input_distribution: d("constant", { value: 1 }),
        output_distribution: d("constant", { value: 1 }),
      }),
    ],
  });
  return generateAll(spec).map((r) => r.arrival);
}

test("constant-arrival vectors", () => {
  for (const [rate, iat] of [
    [1, 1_000_000],
    [3, 333_333],
    [10, 99_999],
    [100, 10_000],
  ] as const) {
    assert.deepStrictEqual(
      constantArrivals(rate, 4),
      [1, 2, 3, 4].map((k) => k * iat),
      `rate ${rate}`,
    );
  }
});

test("rate split: fractions need not sum to 1; tiny rates floor at 1e-15", () => {
  const spec = makeSpec({
    aggregate_rate: 4,
    num_requests: 8,
    clients: [
      makeClient({
        tenant_id: "a",
        rate_fraction: 3,
        arrival: { process: "constant" },
        input_distribution: d("constant", { value: 1 }),
        output_distribution: d("constant", { value: 1 }),
      }),
      makeClient({
        tenant_id: "b",
        rate_fraction: 1,
        arrival: { process: "constant" },
        input_distribution: d("constant", { value: 1 }),
        output_distribution: d("constant", { value: 1 }),
      }),
    ],
  });
  const reqs = generateAll(spec);
  assert.deepStrictEqual(
    reqs.map((r) => `${r.tenantId}@${r.arrival}`),
    ["a@333333", "a@666666", "a@999999", "b@1000000", "a@1333332", "a@1666665", "a@1999998", "b@2000000"],
  );
  const tiny = generateAll({ ...spec, aggregate_rate: 1e-300, num_requests: 2, clients: [spec.clients[0]] });
  assert.deepStrictEqual(
    tiny.map((r) => r.arrival),
    [1, 2].map((k) => k * Math.trunc(1 / 1e-15)),
  );
});
