// Finding a bundled config.json for a model name that is spelled differently from the folder
// (docs/latency.md "Model names"): instruct/base/chat variants, Hugging Face "-hf" suffixes,
// quantized re-releases, dated releases, and a short list of architecture-equivalent models.

import { readdirSync } from "node:fs";

/** Name suffix words that do not change the architecture. */
const VARIANT_WORDS = new Set(["instruct", "chat", "hf", "base", "it", "dynamic", "fp8", "w4a16", "w8a8", "quantized"]);

/** Models whose architecture is identical to a bundled one under another name. */
const ARCHITECTURE_EQUIVALENTS: ReadonlyArray<readonly [RegExp, string]> = [
  [/^llama-3\.3-70b/, "llama-3.1-70b-instruct"],
  [/^llama-3\.1-nemotron-70b/, "llama-3.1-70b-instruct"],
];

/** The model's own name (after the last "/"), lower-cased, without variant words. */
export function normalizeModelName(model: string, dropDate = false): string {
  const base = model.toLowerCase().slice(model.lastIndexOf("/") + 1);
  const words = base.split(/[-_]/).flatMap((w) => w.split(/\.(?=w\d+a\d+$)/));
  const kept = words.filter((w) => !VARIANT_WORDS.has(w) && !(dropDate && /^\d{4}$/.test(w)));
  return kept.join("-");
}

export interface ConfigFolderMatch {
  /** Folder name under model_configs/. */
  folder: string;
  /** True when the folder is the model's own name (then its quantization settings apply as they are). */
  exact: boolean;
}

function listFolders(configsDir: string): string[] {
  try {
    return readdirSync(configsDir, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort();
  } catch {
    return [];
  }
}

/**
 * The bundled config folder for `model`, or null. `exactName` is the folder the reference looks
 * in (the name after the first "/"); other spellings are matched by normalized name, then without
 * a release date, then by the architecture-equivalence list.
 */
export function findConfigFolder(configsDir: string, model: string, exactName: string): ConfigFolderMatch | null {
  const folders = listFolders(configsDir);
  if (folders.includes(exactName)) return { folder: exactName, exact: true };
  for (const dropDate of [false, true]) {
    const want = normalizeModelName(model, dropDate);
    const hit = folders.find((f) => normalizeModelName(f, dropDate) === want);
    if (hit !== undefined) return { folder: hit, exact: false };
  }
  const own = normalizeModelName(model);
  for (const [pattern, folder] of ARCHITECTURE_EQUIVALENTS) {
    if (pattern.test(own) && folders.includes(folder)) return { folder, exact: false };
  }
  return null;
}
