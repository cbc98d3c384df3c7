// The one stderr line of `blis run` that says which latency coefficients a run used and where they
// came from (flags, a --latency-coeffs file, a defaults file or the bundled data), so that a file
// that was read, or one that was silently not read, shows.

import path from "node:path";
import { PACKAGE_ROOT } from "../../util/paths.js";
import type { ResolvedLatency } from "./backend.js";

/** A bundled file as `bundled data/...`; any other path as given. */
export function sourceName(file: string): string {
  const rel = path.relative(PACKAGE_ROOT, path.resolve(file));
  return rel.startsWith("data" + path.sep) ? `bundled ${rel.split(path.sep).join("/")}` : file;
}

/** Six significant digits: enough to tell coefficient sets apart on one line. */
function list(xs: readonly number[]): string {
  return `[${xs.map((x) => String(Number(x.toPrecision(6)))).join(", ")}]`;
}

/** "latency: blackbox, H100 TP 2, coefficients from …: alpha=[…] beta=[…]". */
export function coefficientNote(lat: ResolvedLatency): string {
  // Blackbox with explicit coefficients needs neither GPU nor TP.
  const deployment =
    lat.hardware === "" && lat.tp === 0 ? "GPU and TP not used" : `${lat.hardware || "?"} TP ${lat.tp}`;
  const where = `latency: ${lat.backend}, ${deployment}`;
  if (lat.coefficientSource === undefined) return `${where}, no fitted coefficients (analytical)`;
  return `${where}, coefficients from ${lat.coefficientSource}: alpha=${list(lat.alpha)} beta=${list(lat.beta)}`;
}
