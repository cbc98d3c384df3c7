// URL parameters → `blis run` input, with the CLI's own flag table and value parsers
// (src/config/runFlags.ts, src/config/parseFlagValue.ts), so a bad value gets the message the
// command line prints; and the equivalent `npx blis run ...` command line.

import { runFlags, type AnyFlagDef } from "../../src/config/runFlags.js";
import { flagParser } from "../../src/config/parseFlagValue.js";
import type { RunInput } from "../../src/config/runOptions.js";
import type { FieldError, FlagInfo, Params } from "../shared/protocol.js";
import { PAGE_PARAMS, SPEC_PARAM, WORKLOAD_FILE } from "../shared/pageParams.js";

/** Flags that read or write files the page does not have, and why they are not offered. */
const UNAVAILABLE: Record<string, string> = {
  "workload-spec": `paste the spec instead (${SPEC_PARAM})`,
  "latency-coeffs": "it reads a file",
  "model-config-folder": "it reads a folder",
  "hardware-config": "it reads a file",
  "defaults-filepath": "it reads a file",
  "workload-traces-filepath": "it reads a file",
  "replay-trace": "it reads a file",
  "replay-trace-data": "it reads a file",
  "policy-config": "it reads a file",
  plugin: "it loads a module",
  "plugin-option": "it configures a plugin",
  "results-path": "it writes a file",
  report: "it writes a file; the page shows the report's charts",
  "saturation-config": "it reads a file",
  "saturation-report": "it writes a file",
  "lora-config": "it reads a file",
};

/** The value part of commander's option text, as `blis run --help` shows it (src/cli/runCommand.ts optionFor). */
function optionText(f: AnyFlagDef): string {
  if (f.type === "bool") return `${f.flag} [bool]`;
  if (f.type === "strings") return `${f.flag} <${f.metavar ?? "path"}>`;
  return `${f.flag} <${f.metavar ?? (f.type === "floats" ? "list" : f.type)}>`;
}

const nameOf = (f: AnyFlagDef): string => f.flag.replace(/^--/, "");

export function flagInfos(): FlagInfo[] {
  return runFlags().map((f) => ({
    name: nameOf(f),
    type: f.type,
    def: f.def,
    help: f.help,
    group: f.group,
    unavailable: UNAVAILABLE[nameOf(f)] ?? "",
  }));
}

export interface ParsedParams {
  input: RunInput;
  errors: FieldError[];
  /** The pasted workload spec, or null. */
  specYaml: string | null;
}

/** Parses the parameters the way `blis run` parses its flags; every bad field gets its message. */
export function parseParams(params: Params): ParsedParams {
  const flags = new Map(runFlags().map((f) => [nameOf(f), f] as const));
  const input: Record<string, unknown> = {};
  const errors: FieldError[] = [];
  let specYaml: string | null = null;
  for (const [name, value] of params) {
    if (name === SPEC_PARAM) {
      specYaml = value.trim() === "" ? null : value;
      continue;
    }
    if (PAGE_PARAMS.includes(name) || value === "") continue;
    const f = flags.get(name);
    if (f === undefined) {
      errors.push({ field: name, message: `error: unknown option '--${name}'` });
      continue;
    }
    const why = UNAVAILABLE[name];
    if (why !== undefined) {
      errors.push({ field: name, message: `error: --${name} is not available in the playground (${why})` });
      continue;
    }
    try {
      input[f.key] = flagParser(f.type, f.flag)(value, input[f.key]);
    } catch (e) {
      const detail = e instanceof Error ? e.message : String(e);
      errors.push({
        field: name,
        message: `error: option '${optionText(f)}' argument '${value}' is invalid. ${detail}`,
      });
    }
  }
  if (specYaml !== null) input["workloadSpec"] = WORKLOAD_FILE;
  return { input: input as RunInput, errors, specYaml };
}

/** The form field a message is about: the first known flag it names. */
export function fieldOf(message: string, params: Params): string {
  const names = new Set(runFlags().map(nameOf));
  for (const m of message.matchAll(/--([a-z0-9][a-z0-9-]*)/g)) {
    if (names.has(m[1]!))
      return m[1] === "workload-spec" && params.some(([n]) => n === SPEC_PARAM) ? SPEC_PARAM : m[1]!;
  }
  if (/workload spec|workload\.yaml/i.test(message) && params.some(([n]) => n === SPEC_PARAM)) return SPEC_PARAM;
  return "";
}

function shellQuote(s: string): string {
  return /^[A-Za-z0-9_./:,=@%+-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** `npx blis run ...` with the given flags in order (page parameters left out). */
export function commandLine(params: Params): string {
  const parts = ["npx", "blis", "run"];
  let spec = false;
  for (const [name, value] of params) {
    if (name === SPEC_PARAM) spec = value.trim() !== "";
    if (PAGE_PARAMS.includes(name) || value === "") continue;
    parts.push(`--${name}`, shellQuote(value));
  }
  if (spec) parts.push("--workload-spec", WORKLOAD_FILE);
  return parts.join(" ");
}
