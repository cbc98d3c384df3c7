// The seed-era backends: trained alpha/beta regression ("blackbox", docs/latency.md "Backends")
// and the seed roofline formula reached by `--roofline` (docs/behavior.md#q21). Their resolution
// is the seed's, unchanged, so seed-era invocations keep their results (docs/behavior.md
// "Step time and request timelines").

import { BlackboxLatencyModel } from "../blackbox.js";
import { buildRooflineModel, loadRooflineInputs } from "../resolveRoofline.js";
import { resolveLatency } from "./latencyResolution.js";
import type { LatencyBackend, LatencyRequest, ResolvedLatency } from "./backend.js";
import { checkTpSplit } from "./analytical.js";
import { UserError } from "../../util/errors.js";
import { sourceName } from "./coefficientNote.js";

async function resolveSeed(req: LatencyRequest, roofline: boolean, name: string): Promise<ResolvedLatency> {
  // The seed accepted negative coefficients, which give negative step times; refused as today's BLIS does.
  checkNonNegative("--alpha-coeffs", req.alpha);
  checkNonNegative("--beta-coeffs", req.beta);
  const lat = resolveLatency(
    {
      model: req.model,
      hardware: req.hardware,
      tp: req.tp,
      vllmVersion: req.vllmVersion,
      roofline,
      modelConfigFolder: req.modelConfigFolder,
      hardwareConfig: req.hardwareConfig,
      defaultsFilepath: req.defaultsFilepath,
      alpha: req.alpha ?? [0, 0, 0],
      beta: req.beta ?? [0, 0, 0],
      totalKvBlocks: req.totalKvBlocks ?? req.defaultKvBlocks,
      totalKvBlocksExplicit: req.totalKvBlocks !== null,
    },
    req.log,
  );
  const common = {
    hardware: lat.hardware,
    tp: lat.tp,
    alpha: lat.alpha,
    beta: lat.beta,
    totalKvBlocks: lat.totalKvBlocks,
    coefficientSource: seedSource(req, lat.vllmVersion),
  };
  if (lat.roofline) {
    // Loaded now so that their errors come before workload errors, as in BLIS.
    const inputs = await loadRooflineInputs({
      model: req.model,
      hardware: lat.hardware,
      tp: lat.tp,
      modelConfigFolder: lat.modelConfigFolder,
      hardwareConfigPath: lat.hardwareConfig,
      defaultsDir: lat.defaultsDir,
      hfRepo: lat.hfRepo,
      alpha: lat.alpha,
      logger: req.log,
      ...(req.fetchImpl ? { fetchImpl: req.fetchImpl } : {}),
    });
    checkTpSplit(req.model, inputs.modelConfig.numHeads, inputs.modelConfig.numKVHeads, lat.tp);
    let model: BlackboxLatencyModel | ReturnType<typeof buildRooflineModel> | null = null;
    return {
      ...common,
      backend: "seed-roofline",
      maxModelLen: 0,
      build: () => (model ??= buildRooflineModel(inputs, lat.tp, lat.alpha)),
    };
  }
  return {
    ...common,
    backend: name,
    maxModelLen: 0,
    build: () => new BlackboxLatencyModel(lat.alpha, lat.beta),
    withCoefficients: (c) => () => new BlackboxLatencyModel(c.alpha, c.beta),
  };
}

/** Flags (either one disables the lookup), else the defaults file's entry for the model, GPU, TP and version. */
function seedSource(req: LatencyRequest, version: string): string {
  const nonZero = (xs: readonly number[] | null): boolean => xs !== null && xs.some((x) => x !== 0);
  if (nonZero(req.alpha) || nonZero(req.beta)) return "--alpha-coeffs/--beta-coeffs";
  return `${sourceName(req.defaultsFilepath)}${version !== "" ? ` (${version})` : ""}`;
}

function checkNonNegative(flag: string, xs: readonly number[] | null): void {
  // NaN and ±Inf keep the seed's construction panic (exit 2).
  xs?.forEach((x, i) => {
    if (Number.isFinite(x) && x < 0)
      throw new UserError(`${flag}[${i}] must be a finite non-negative number, got ${x}`);
  });
}

export const blackboxBackend: LatencyBackend = {
  name: "blackbox",
  summary: "alpha/beta regression fitted per model, GPU, TP and vLLM version (2025 coefficients; seed-era studies)",
  listed: true,
  resolve: (req) => resolveSeed(req, false, "blackbox"),
};

export const seedRooflineBackend: LatencyBackend = {
  name: "seed-roofline",
  summary: "the 2025 analytical roofline formula with its hardware file (what --roofline selects)",
  listed: false,
  resolve: (req) => resolveSeed(req, true, "seed-roofline"),
};
