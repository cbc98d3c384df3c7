/**
 * A model given by explicit blackbox coefficients: a CLI run needs no model config or defaults-file
 * entry and prints no latency warnings, so tests see only what they are about.
 */
export const QUIET_MODEL: readonly string[] = [
  "--model",
  "test-model",
  "--alpha-coeffs",
  "100,1,100",
  "--beta-coeffs",
  "1000,2,1",
];
