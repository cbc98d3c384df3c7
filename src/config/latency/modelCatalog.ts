// What the bundled data knows about each model (`blis models`): default GPU and TP, the config.json
// the current backends would use, and the GPU/TP combinations with blackbox coefficients.

import path from "node:path";
import { loadCoefficientFile } from "../../latency/coefficientFile.js";
import { findConfigFolder } from "../../latency/modelAliases.js";
import { localModelDirName } from "../../latency/modelConfig.js";
import { loadDefaultsFile } from "../defaultsFile.js";
import { BUNDLED_DATA_DIR, BUNDLED_DEFAULTS, BUNDLED_TRAINED_PHYSICS, BUNDLED_TRAINED_PHYSICS_CACHE } from "../paths.js";

export interface ModelEntry {
  model: string;
  /** "H100 TP1", or "" when the model has no default. */
  defaultDeployment: string;
  /** Bundled config folder, "" when none (then trained-physics and roofline need --model-config-folder). */
  config: string;
  configIsAlias: boolean;
  /** "H100 TP1,2,4 (v0.8.4)" style summaries of blackbox coefficients. */
  blackbox: string[];
}

export function modelCatalog(): ModelEntry[] {
  const head = loadCoefficientFile(BUNDLED_TRAINED_PHYSICS, "bundled coefficients", BUNDLED_TRAINED_PHYSICS_CACHE).defaults ?? {};
  const seed = loadDefaultsFile(BUNDLED_DEFAULTS);
  const names = new Set([...Object.keys(head), ...Object.keys(seed.defaults ?? {}), ...(seed.models ?? []).map((m) => m.id)]);
  const configs = path.join(BUNDLED_DATA_DIR, "model_configs");
  return [...names].sort().map((model) => {
    const fitted = (seed.models ?? []).find((m) => m.id === model);
    const def = head[model] ?? seed.defaults?.[model] ?? fitted;
    const cfg = findConfigFolder(configs, model, localModelDirName(model));
    const byGpu = new Map<string, Set<number>>();
    for (const m of seed.models ?? []) {
      if (m.id !== model) continue;
      const key = `${m.GPU} (${m.vllm_version.replace(/^vllm\/vllm-openai:/, "")})`;
      (byGpu.get(key) ?? byGpu.set(key, new Set()).get(key)!).add(m.tensor_parallelism);
    }
    const blackbox = [...byGpu].map(([k, tps]) => `${k.split(" ")[0]} TP${[...tps].sort((a, b) => a - b).join(",")} ${k.split(" ")[1]}`);
    return {
      model,
      defaultDeployment: def ? `${def.GPU} TP${def.tensor_parallelism}` : "",
      config: cfg?.folder ?? "",
      configIsAlias: cfg !== null && !cfg.exact,
      blackbox,
    };
  });
}

/** The catalog as an aligned text table. */
export function renderModelCatalog(entries: readonly ModelEntry[]): string {
  const rows = [["MODEL", "DEFAULT", "CONFIG (trained-physics, roofline)", "BLACKBOX COEFFICIENTS"]];
  for (const e of entries) {
    const cfg = e.config === "" ? "- (needs --model-config-folder)" : e.configIsAlias ? `${e.config} (same architecture)` : e.config;
    rows.push([e.model, e.defaultDeployment || "-", cfg, e.blackbox.join("; ") || "-"]);
  }
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join("  ")).join("\n") + "\n";
}
