// Search-space files of `blis optimize`: strict YAML parsing with positions and validation that
// names the offending item, into an OptimizeSpace (base run options, parameters, objective,
// constraints) plus an identity hash for resuming. The parameters and the objective and
// constraints are read in parameters.ts and objective.ts.

import path from "node:path";
import type { Node } from "yaml";
import type { RunInput } from "../config/runOptions.js";
import { canonicalHash } from "../experiment/canonical.js";
import { readFlags, readSpec, SPACE_KIND } from "../experiment/configYaml.js";
import { DEFAULT_SEEDS, DEFAULT_TIMEOUT_S } from "../experiment/plan.js";
import { timeoutProblem } from "../experiment/planTypes.js";
import { YamlSource, type Entry } from "../util/yamlSource.js";
import { InputFileError, readInputFile, SPEC_FILE_LIMIT } from "../util/inputFile.js";
import { SpaceError } from "./errors.js";
import { readConstraints, readObjective, type Constraint, type Objective } from "./objective.js";
import { readParameters, type Parameter } from "./parameters.js";

export interface OptimizeSpace {
  name: string;
  /** The file as given (error messages) and its absolute path. */
  file: string;
  source: string | null;
  /** Seed of the search itself (design, candidate points). */
  seed: number;
  /** Simulation seeds: an evaluation is the mean over these. */
  seeds: number[];
  budget: number;
  initial: number;
  timeoutS: number;
  /** Run options shared by every evaluation (the workload spec as an object). */
  base: RunInput;
  /** The base workload spec file (absolute), or null when it is inline or absent. */
  specFile: string | null;
  /** Run options of the baseline (base + baseline flags), or null without a baseline. */
  baseline: RunInput | null;
  parameters: Parameter[];
  objective: Objective;
  constraints: Constraint[];
  /** Identity of everything that determines the evaluations and the search path (not budget, not name). */
  hash: string;
}

const TOP_KEYS = [
  "name",
  "seed",
  "seeds",
  "budget",
  "initial",
  "timeout_s",
  "base",
  "baseline",
  "parameters",
  "objective",
  "constraints",
];

export const DEFAULT_BUDGET = 30;
/**
 * Most evaluations one search may ask for: the Gaussian-process fit grows with the cube of the
 * evaluations, and the initial design is built in memory, so a larger budget would never finish.
 */
export const MAX_BUDGET = 1000;
export const DEFAULT_SEARCH_SEED = 1;

/** Default size of the initial design: max(5, budget/4), at most the budget. */
export function defaultInitial(budget: number): number {
  return Math.min(budget, Math.max(5, Math.floor(budget / 4)));
}

/** Reads and validates a search-space file. Throws SpaceError (one line) when it is invalid. */
export function loadSpace(file: string): OptimizeSpace {
  let text: string;
  try {
    text = readInputFile(file, SPEC_FILE_LIMIT);
  } catch (e) {
    const why = e instanceof InputFileError ? e.reason : (e as Error).message;
    throw new SpaceError(`${file}: cannot read the space file: ${why}`);
  }
  return parseSpace(text, { file, baseDir: path.dirname(path.resolve(file)), source: path.resolve(file) });
}

export interface ParseSpaceOptions {
  file?: string;
  /** Directory relative paths are resolved against (default: cwd). */
  baseDir?: string;
  source?: string | null;
}

/** Parses search-space YAML text. Throws SpaceError naming the item and its line/column. */
export function parseSpace(text: string, opts: ParseSpaceOptions = {}): OptimizeSpace {
  const file = opts.file ?? "space.yaml";
  const baseDir = opts.baseDir ?? process.cwd();
  const y = new YamlSource(file, text, { error: (m) => new SpaceError(m), what: "space" });
  const top = y.map(y.root, "space", TOP_KEYS);
  // In this order: the parameters depend on base, the constraints on the objective and the baseline.
  const settings = readSettings(y, top, file);
  const { base, baseFlagNodes, specFile } = readBase(y, top, baseDir);
  const baseline = readBaseline(y, top, base, baseDir);
  const parameters = readParameters(y, top, { base, baseFlagNodes, baseDir });
  const objective = readObjective(
    y,
    top,
    typeof base["fitnessWeights"] === "string" ? (base["fitnessWeights"] as string) : "",
  );
  const constraints = readConstraints(y, top, objective, baseline !== null);
  const space: Omit<OptimizeSpace, "hash"> = {
    name: settings.name,
    file,
    source: opts.source ?? null,
    seed: settings.seed,
    seeds: settings.seeds,
    budget: settings.budget,
    initial: settings.initial,
    timeoutS: settings.timeoutS,
    base: base as RunInput,
    specFile,
    baseline,
    parameters,
    objective,
    constraints,
  };
  return { ...space, hash: spaceHash(space) };
}

type SearchSettings = Pick<OptimizeSpace, "name" | "seed" | "seeds" | "budget" | "initial" | "timeoutS">;

/** The scalar top-level keys: name, search seed, simulation seeds, budget, initial design, timeout. */
function readSettings(y: YamlSource, top: Map<string, Entry>, file: string): SearchSettings {
  const node = (k: string): Node | null => top.get(k)?.value ?? null;
  const name = top.has("name") ? y.str(node("name"), "name") : path.basename(file).replace(/\.ya?ml$/i, "");
  const seed = top.has("seed") ? y.int(node("seed"), "seed", 0) : DEFAULT_SEARCH_SEED;
  const seeds = top.has("seeds") ? readSeeds(y, node("seeds")) : DEFAULT_SEEDS.slice();
  const budget = top.has("budget") ? y.int(node("budget"), "budget", 1) : DEFAULT_BUDGET;
  if (budget > MAX_BUDGET)
    y.fail(node("budget"), "budget", `expected at most ${MAX_BUDGET} evaluations, got ${budget}`);
  let initial = defaultInitial(budget);
  if (top.has("initial")) {
    initial = y.int(node("initial"), "initial", 1);
    if (initial > budget)
      y.fail(node("initial"), "initial", `the initial design (${initial}) is larger than the budget (${budget})`);
  }
  let timeoutS = DEFAULT_TIMEOUT_S;
  if (top.has("timeout_s")) {
    timeoutS = y.num(node("timeout_s"), "timeout_s");
    const why = timeoutProblem(timeoutS);
    if (why !== null) y.fail(node("timeout_s"), "timeout_s", why);
  }
  return { name, seed, seeds, budget, initial, timeoutS };
}

function readSeeds(y: YamlSource, node: Node | null): number[] {
  const items = y.seq(node, "seeds");
  if (items.length === 0) y.fail(node, "seeds", "the seed list must not be empty");
  const seeds = items.map((n, i) => {
    const v = y.num(n, `seeds[${i}]`);
    if (!Number.isSafeInteger(v)) y.fail(n, `seeds[${i}]`, `expected an integer, got ${y.text(n, `seeds[${i}]`)}`);
    return v;
  });
  const dup = seeds.find((s, i) => seeds.indexOf(s) !== i);
  if (dup !== undefined) y.fail(node, "seeds", `seed ${dup} is listed twice`);
  return seeds;
}

/** The `base` section: run options shared by every evaluation, and the workload spec file if any. */
function readBase(
  y: YamlSource,
  top: Map<string, Entry>,
  baseDir: string,
): { base: Record<string, unknown>; baseFlagNodes: Map<string, Node>; specFile: string | null } {
  if (!top.has("base")) y.fail(y.root, "base", 'missing key "base" (base.flags needs at least the model)');
  const baseEntries = y.map(top.get("base")!.value, "base", ["flags", "workload_spec"]);
  const base: Record<string, unknown> = {};
  const baseFlagNodes = new Map<string, Node>();
  if (baseEntries.has("flags"))
    readFlags(y, baseEntries.get("flags")!.value, "base.flags", baseDir, SPACE_KIND, base, baseFlagNodes);
  let specFile: string | null = null;
  if (baseEntries.has("workload_spec")) {
    const sn = baseEntries.get("workload_spec")!.value;
    if (base["workloadSpec"] !== undefined) {
      y.fail(sn, "base.workload_spec", "use either base.workload_spec or the workload-spec flag, not both");
    }
    const r = readSpec(y, sn, baseDir);
    base["workloadSpecObject"] = r.spec;
    specFile = r.file;
  } else if (typeof base["workloadSpec"] === "string" && base["workloadSpec"] !== "") {
    specFile = base["workloadSpec"];
  }
  if (typeof base["model"] !== "string" || base["model"] === "") {
    y.fail(top.get("base")!.key, "base.flags", "no model: set base.flags model");
  }
  return { base, baseFlagNodes, specFile };
}

/** The `baseline` section: base plus its flags, or null without one. */
function readBaseline(
  y: YamlSource,
  top: Map<string, Entry>,
  base: Record<string, unknown>,
  baseDir: string,
): RunInput | null {
  if (!top.has("baseline")) return null;
  const be = y.map(top.get("baseline")!.value, "baseline", ["flags"]);
  const flags: Record<string, unknown> = {};
  if (be.has("flags")) readFlags(y, be.get("flags")!.value, "baseline.flags", baseDir, SPACE_KIND, flags, new Map());
  return { ...base, ...flags } as RunInput;
}

/** The identity of a space: what decides the runs and the search path (budget and name excluded). */
export function spaceHash(s: Omit<OptimizeSpace, "hash">): string {
  return canonicalHash({
    format: "blis-optimize/1",
    seed: s.seed,
    seeds: s.seeds,
    initial: s.initial,
    timeoutS: s.timeoutS,
    base: s.base,
    baseline: s.baseline,
    parameters: s.parameters.map((p) => ({
      name: p.name,
      type: p.type,
      min: p.min,
      max: p.max,
      log: p.log,
      categories: p.categories,
      target: p.target.kind === "flag" ? { kind: "flag", flag: p.target.flag } : p.target,
    })),
    objective: s.objective,
    constraints: s.constraints,
  });
}
