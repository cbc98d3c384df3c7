// What the bundled data knows about each model (`blis models`): default GPU and TP, the config.json
// the current backends would use, and the GPU/TP combinations with blackbox coefficients. The
// default deployment depends on the latency model: kernels, trained-physics and roofline take it
// from today's defaults (data/trained-physics.yaml), blackbox from the 2025 defaults.yaml as BLIS
// did (e.g. Llama-3.1-8B: H100 TP 1 today, H100 TP 2 for blackbox).

import path from "node:path";
import { loadCoefficientFile } from "../coefficientFile.js";
import { findConfigFolder } from "../modelAliases.js";
import { localModelDirName } from "../modelConfig.js";
import { loadDefaultsFile } from "../defaultsFile.js";
import {
  BUNDLED_DATA_DIR,
  BUNDLED_DEFAULTS,
  BUNDLED_TRAINED_PHYSICS,
  BUNDLED_TRAINED_PHYSICS_CACHE,
} from "../../util/paths.js";

export interface ModelEntry {
  model: string;
  /** "H100 TP1" for kernels, trained-physics and roofline, or "" when the model has no default. */
  defaultDeployment: string;
  /** "H100 TP2 (v0.8.4)": what --latency-model blackbox fills in without --hardware/--tp; "" when none. */
  blackboxDefault: string;
  /** Bundled config folder, "" when none (then trained-physics and roofline need --model-config-folder). */
  config: string;
  configIsAlias: boolean;
  /** "H100 TP1,2,4 (v0.8.4)" style summaries of blackbox coefficients. */
  blackbox: string[];
}

export function modelCatalog(): ModelEntry[] {
  const head =
    loadCoefficientFile(BUNDLED_TRAINED_PHYSICS, "bundled coefficients", BUNDLED_TRAINED_PHYSICS_CACHE).defaults ?? {};
  const seed = loadDefaultsFile(BUNDLED_DEFAULTS);
  const names = new Set([
    ...Object.keys(head),
    ...Object.keys(seed.defaults ?? {}),
    ...(seed.models ?? []).map((m) => m.id),
  ]);
  const configs = path.join(BUNDLED_DATA_DIR, "model_configs");
  return [...names].sort().map((model) => {
    const fitted = (seed.models ?? []).find((m) => m.id === model);
    const def = head[model] ?? seed.defaults?.[model] ?? fitted;
    const bb = seed.defaults?.[model];
    const cfg = findConfigFolder(configs, model, localModelDirName(model));
    const byGpu = new Map<string, Set<number>>();
    for (const m of seed.models ?? []) {
      if (m.id !== model) continue;
      const key = `${m.GPU} (${m.vllm_version.replace(/^vllm\/vllm-openai:/, "")})`;
      (byGpu.get(key) ?? byGpu.set(key, new Set()).get(key)!).add(m.tensor_parallelism);
    }
    const blackbox = [...byGpu].map(
      ([k, tps]) => `${k.split(" ")[0]} TP${[...tps].sort((a, b) => a - b).join(",")} ${k.split(" ")[1]}`,
    );
    return {
      model,
      defaultDeployment: def ? `${def.GPU} TP${def.tensor_parallelism}` : "",
      blackboxDefault: bb
        ? `${bb.GPU} TP${bb.tensor_parallelism}${bb.vllm_version ? ` (${bb.vllm_version.replace(/^vllm\/vllm-openai:/, "")})` : ""}`
        : "",
      config: cfg?.folder ?? "",
      configIsAlias: cfg !== null && !cfg.exact,
      blackbox,
    };
  });
}

/** The catalog as an aligned text table. */
export function renderModelCatalog(entries: readonly ModelEntry[]): string {
  const rows = [
    ["MODEL", "DEFAULT (kernels, trained-physics, roofline)", "CONFIG", "BLACKBOX DEFAULT", "BLACKBOX COEFFICIENTS"],
  ];
  for (const e of entries) {
    const cfg =
      e.config === ""
        ? "- (needs --model-config-folder)"
        : e.configIsAlias
          ? `${e.config} (same architecture)`
          : e.config;
    rows.push([e.model, e.defaultDeployment || "-", cfg, e.blackboxDefault || "-", e.blackbox.join("; ") || "-"]);
  }
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join("  ")).join("\n") + "\n";
}
