// GPU price tables (`--gpu-prices`, default data/gpu-prices.yaml): prices are inputs, so every
// cost the planner prints names the table, its date and its label.

import path from "node:path";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { BUNDLED_DATA_DIR } from "../util/paths.js";
import { readInputFile, SPEC_FILE_LIMIT } from "../util/inputFile.js";
import { UserError } from "../util/errors.js";

export const BUNDLED_PRICES = path.join(BUNDLED_DATA_DIR, "gpu-prices.yaml");

export interface PriceTable {
  /** The table's own name ("example list prices" for the bundled one). */
  name: string;
  /** When the prices were taken (ISO date as written in the file). */
  date: string;
  currency: string;
  /** Price of one GPU for one hour, by GPU name. */
  perGpuHour: Record<string, number>;
  /** The file it came from. */
  file: string;
}

const TableSchema = z.strictObject({
  name: z.string().min(1),
  date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "must be a date YYYY-MM-DD"),
  currency: z.string().min(1),
  per_gpu_hour: z.record(z.string(), z.number().positive().finite()),
});

/** Reads and checks a price table; a bad file is a UserError naming the file and key. */
export function loadPriceTable(file: string = BUNDLED_PRICES): PriceTable {
  let raw: unknown;
  try {
    raw = parseYaml(readInputFile(file, SPEC_FILE_LIMIT));
  } catch (e) {
    throw new UserError(`--gpu-prices ${file}: ${e instanceof Error ? e.message.split("\n")[0] : String(e)}`);
  }
  const parsed = TableSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new UserError(`--gpu-prices ${file}: ${issue.path.join(".") || "(top level)"}: ${issue.message}`);
  }
  const t = parsed.data;
  // The bundled table is named by its place in the package, so output does not depend on where it is installed.
  const shown = path.resolve(file) === BUNDLED_PRICES ? "bundled data/gpu-prices.yaml" : file;
  return { name: t.name, date: t.date, currency: t.currency, perGpuHour: t.per_gpu_hour, file: shown };
}

/** How costs name their table: `example list prices, 2026-11-01`. */
export function tableLabel(t: PriceTable): string {
  return `${t.name}, ${t.date}`;
}

/** The hourly price of one GPU, or a UserError naming the table. */
export function gpuPrice(t: PriceTable, gpu: string): number {
  const p = t.perGpuHour[gpu];
  if (p === undefined) {
    throw new UserError(
      `--gpu-prices: no price for GPU ${gpu} in ${t.file} (${tableLabel(t)}); add it under per_gpu_hour or leave it out of --gpus`,
    );
  }
  return p;
}
