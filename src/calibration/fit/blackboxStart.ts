// Where a blackbox fit starts (docs/calibration.md "Fit"): the --alpha-coeffs/--beta-coeffs of
// the run flags, else the bundled blackbox entry of the deployment, resolved as `blis run` does.

import type { Coefficients } from "../../latency/backends/backend.js";
import { resolveLatencyBackend } from "../../latency/backends/resolve.js";
import type { RunInput } from "../../config/runOptions.js";
import { parseRunInput } from "../../sim/parseOptions.js";
import { UserError } from "../../util/errors.js";
import { silentLogger } from "../../util/log.js";

export interface BlackboxStart {
  coefficients: Coefficients;
  /**
   * The KV block count of the bundled entry, when the replays take it from there: the printed
   * flags then name it, since explicit coefficients do not look it up (docs/latency.md).
   */
  kvBlocks: number | null;
}

const ASK = "give starting coefficients with --alpha-coeffs A0,A1,A2 --beta-coeffs B0,B1,B2";

export async function blackboxStart(run: RunInput): Promise<BlackboxStart> {
  const input: RunInput = { ...run, latencyModel: "blackbox" };
  const { o, explicit } = parseRunInput(input, silentLogger);
  let lat;
  try {
    lat = await resolveLatencyBackend(o, explicit, silentLogger);
  } catch (e) {
    if (!(e instanceof UserError)) throw e;
    throw new UserError(`--latency-model blackbox: no starting coefficients for ${o.model} (${e.message}); ${ASK}`);
  }
  const given = explicit.has("alphaCoeffs") || explicit.has("betaCoeffs");
  if (lat.backend !== "blackbox" || lat.beta.length < 3 || lat.beta.every((b) => b === 0)) {
    throw new UserError(`--latency-model blackbox: no bundled blackbox coefficients for ${o.model}; ${ASK}`);
  }
  return {
    coefficients: { alpha: lat.alpha.slice(0, 3), beta: lat.beta.slice(0, 3) },
    kvBlocks: given || explicit.has("totalKvBlocks") ? null : lat.totalKvBlocks,
  };
}
