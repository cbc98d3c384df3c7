// Today's analytical roofline: MoE-aware FLOPs and bytes, FP8, no trained terms (docs/latency.md "Roofline").

import { RooflineV2LatencyModel } from "../rooflineV2.js";
import { UserError } from "../../util/errors.js";
import { resolveAnalytical } from "./analytical.js";
import type { LatencyBackend } from "./backend.js";

export const rooflineBackend: LatencyBackend = {
  name: "roofline",
  summary: "analytical compute/bandwidth bound from config.json and the GPU table, no fitted terms",
  listed: true,
  async resolve(req) {
    if (req.alpha !== null || req.beta !== null) {
      throw new UserError(
        "--alpha-coeffs/--beta-coeffs cannot be used with --latency-model roofline. Roofline computes step time analytically. " +
          "Use --latency-model trained-physics if you want coefficient-based estimation",
      );
    }
    if (req.latencyCoeffs !== "") throw new UserError("--latency-coeffs cannot be used with --latency-model roofline");
    const s = await resolveAnalytical(req, "roofline", true);
    return {
      backend: "roofline",
      hardware: s.hardware,
      tp: s.tp,
      alpha: [0, 0, 0],
      beta: [],
      totalKvBlocks: s.totalKvBlocks,
      maxModelLen: s.maxModelLen,
      build: () => new RooflineV2LatencyModel(s.arch, s.hw, s.tp),
    };
  },
};
