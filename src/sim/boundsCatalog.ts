// `blis models --check` (docs/latency.md "Physical bounds"): every bundled model with a config, on
// every GPU a latency model knows, at the smallest TP degree that fits, checked against the bounds.

import { parseRunInput } from "./parseOptions.js";
import { checkBounds, boundViolations } from "../latency/physicsBounds.js";
import { KERNEL_GPUS } from "../latency/kernels/tables.js";
import { UserError } from "../util/errors.js";
import type { RunInput } from "../config/runOptions.js";
import { modelCatalog } from "../latency/backends/modelCatalog.js";
import { resolveLatencyBackend } from "../latency/backends/resolve.js";

export interface BoundRow {
  model: string;
  gpu: string;
  latencyModel: string;
  /** 0 when no TP degree up to 8 fits (see `note`). */
  tp: number;
  prefillFactor: number;
  decodeFactor: number;
  violations: string[];
  note: string;
}

const CHECKED_MODELS = ["kernels", "trained-physics"] as const;
/** Trained-physics runs on the GPUs of the bundled hardware file. */
const TRAINED_GPUS = ["H100", "A100-SXM", "L40S"];
const TPS = [1, 2, 4, 8];

async function checkOne(model: string, gpu: string, latencyModel: string): Promise<BoundRow> {
  const row: BoundRow = {
    model,
    gpu,
    latencyModel,
    tp: 0,
    prefillFactor: 0,
    decodeFactor: 0,
    violations: [],
    note: "",
  };
  let last = "";
  for (const tp of TPS) {
    const input: RunInput = { model, hardware: gpu, tp, latencyModel };
    try {
      const { o, explicit, log } = parseRunInput(input, undefined);
      const r = await resolveLatencyBackend(o, explicit, log);
      if (r.bounds === undefined) return { ...row, note: "no bounds: not presented as a prediction" };
      const rep = checkBounds(r.build(), r.bounds.arch, r.bounds.peaks, r.bounds.gpus);
      return {
        ...row,
        tp,
        prefillFactor: rep.prefillFactor,
        decodeFactor: rep.decodeFactor,
        violations: boundViolations(rep),
      };
    } catch (e) {
      if (!(e instanceof UserError)) throw e;
      last = e.message;
    }
  }
  return { ...row, note: `does not run at TP ${TPS.join("/")}: ${last}` };
}

export async function boundsCatalog(): Promise<BoundRow[]> {
  const rows: BoundRow[] = [];
  const gpus = (lm: string): string[] => (lm === "kernels" ? KERNEL_GPUS.filter((g) => g !== "A100-80") : TRAINED_GPUS);
  for (const entry of modelCatalog()) {
    if (entry.config === "") continue;
    for (const lm of CHECKED_MODELS) for (const gpu of gpus(lm)) rows.push(await checkOne(entry.model, gpu, lm));
  }
  return rows;
}

const f2 = (x: number): string => (x > 0 ? x.toFixed(2) : "-");

/** Aligned text: the violations first, then a count of the combinations that keep both bounds. */
export function renderBoundsCatalog(rows: readonly BoundRow[]): string {
  const table = [["MODEL", "GPU", "LATENCY MODEL", "TP", "PREFILL/BOUND", "BOUND/DECODE", "VERDICT"]];
  for (const r of rows) {
    const verdict = r.tp === 0 ? "skipped" : r.violations.length > 0 ? "BREAKS A BOUND" : "ok";
    table.push([
      r.model,
      r.gpu,
      r.latencyModel,
      r.tp > 0 ? String(r.tp) : "-",
      f2(r.prefillFactor),
      f2(r.decodeFactor),
      verdict,
    ]);
  }
  const widths = table[0]!.map((_, i) => Math.max(...table.map((r) => r[i]!.length)));
  const lines = table.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join("  "));
  const broken = rows.filter((r) => r.violations.length > 0);
  lines.push(
    "",
    `${broken.length} of ${rows.filter((r) => r.tp > 0).length} combinations break a physical bound (a factor above 1.00).`,
  );
  for (const r of broken)
    for (const v of r.violations) lines.push(`  ${r.model} ${r.gpu} TP${r.tp} ${r.latencyModel}: ${v}`);
  return lines.join("\n") + "\n";
}
