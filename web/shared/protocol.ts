// Messages between the playground page and its Web Worker (the simulator runs in the worker).
// Pure types: checked with the page's DOM configuration and the worker's Node-typed one.

import type { ChartSpec } from "../../src/report/chartSpec.js";

/** One `blis run` flag as the page shows it (from the CLI's own flag table). */
export interface FlagInfo {
  /** Name without the dashes: the URL parameter and the form field. */
  name: string;
  type: "string" | "int" | "int64" | "float" | "floats" | "bool" | "strings";
  /** The default as `blis run --help` prints it ("" = none). */
  def: string;
  help: string;
  group: string;
  /** Why the flag is not offered in the page (it names a file or writes one), or "". */
  unavailable: string;
}

/** What the page needs to build its form. */
export interface PlaygroundInfo {
  tool: string;
  flags: FlagInfo[];
  models: string[];
  gpus: string[];
  presets: string[];
  choices: Record<string, string[]>;
  scorers: string[];
}

/** Bundled data files by virtual path (scripts/buildWeb.mjs writes them into data.js). */
export type DataFiles = Record<string, { text: string; mtimeMs: number }>;

/** URL parameters in order: [name, value]. */
export type Params = [string, string][];

export interface FieldError {
  /** The form field (flag name without dashes), or "" when the message names none. */
  field: string;
  /** The CLI's message, as `blis run` prints it (starting with "error: "). */
  message: string;
}

export interface Checked {
  errors: FieldError[];
  /** `npx blis run ...` for the parameters. */
  command: string;
  /** The workload as a workload-spec YAML (the pasted one, or the flags' workload written as a spec); "" if unknown. */
  workloadYaml: string;
}

/** Cumulative distribution points of a latency in ms. */
export interface Cdf {
  x: number[];
  y: number[];
}

export interface RunSummary {
  /** The exact stdout of `blis run` for the configuration. */
  stdout: string;
  /** Card values by output key (null = no sample). */
  metrics: Record<string, number | null>;
  /** The same values as `blis run` prints them. */
  printed: Record<string, string>;
  /** Report sections (HTML with chart placeholders) and their charts; empty in metrics-only runs. */
  sectionsHtml: string;
  charts: ChartSpec[];
  cdf: { ttft: Cdf; itl: Cdf; e2e: Cdf };
  numInstances: number;
  /** Wall-clock time of the simulation in ms. */
  wallMs: number;
  /** Log lines the run wrote to stderr (warnings by default). */
  log: string[];
}

export type ToWorker =
  | { type: "init"; data: DataFiles }
  | { type: "check"; id: number; params: Params }
  | { type: "run"; id: number; params: Params; detail: "full" | "metrics" };

export interface Progress {
  /** 0..1 (requests completed of the cap, or simulated time of the horizon). */
  fraction: number;
  completed: number;
  clockUs: number;
}

export type FromWorker =
  | { type: "info"; info: PlaygroundInfo }
  | { type: "checked"; id: number; checked: Checked }
  | { type: "progress"; id: number; progress: Progress }
  | { type: "result"; id: number; result: RunSummary }
  | { type: "failed"; id: number; errors: FieldError[] };
