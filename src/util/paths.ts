import { fileURLToPath } from "node:url";
import path from "node:path";

/** Package root (this file lives at dist/src/util/paths.js once built). */
export const PACKAGE_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

/** The bundled data folder: defaults.yaml, hardware_config.json, model_configs/. */
export const BUNDLED_DATA_DIR = path.join(PACKAGE_ROOT, "data");
export const BUNDLED_DEFAULTS = path.join(BUNDLED_DATA_DIR, "defaults.yaml");
/** JSON copy of the bundled defaults made at build time (scripts/buildDataCache.mjs). */
export const BUNDLED_DEFAULTS_CACHE = path.join(PACKAGE_ROOT, "dist", "data", "defaults.json");
/** Current-era latency data: trained-physics coefficients and model defaults, and the GPU table. */
export const BUNDLED_TRAINED_PHYSICS = path.join(BUNDLED_DATA_DIR, "head", "trained-physics.yaml");
/** JSON copy of the bundled trained-physics coefficients made at build time (scripts/buildDataCache.mjs). */
export const BUNDLED_TRAINED_PHYSICS_CACHE = path.join(PACKAGE_ROOT, "dist", "data", "head", "trained-physics.json");
export const BUNDLED_HARDWARE_V2 = path.join(BUNDLED_DATA_DIR, "head", "hardware_config.json");
/** Measured kernel tables and the kernels model's bundled overhead terms (docs/latency.md "Kernels"). */
export const BUNDLED_KERNEL_OVERHEADS = path.join(BUNDLED_DATA_DIR, "kernels", "overheads.yaml");
