// Command lines of `blis run`: a small valid base (a few short requests, under each latency
// backend and workload mode), followed by generated flags with valid, boundary or invalid values,
// written `--flag value`, `--flag=value` or without their value, plus unknown flags, stray
// arguments and repeated flags.

import fc from "fast-check";
import { printable, type FuzzCase, type FuzzFile } from "./case.js";
import { FLAG_GENS, type Value } from "./flagValues.js";
import { QUIET_MODEL } from "../helpers/quietModel.js";

export const LLAMA = "meta-llama/llama-3.1-8b-instruct";
/** Short prompts and outputs; the standard deviations lie within [min, max] as the range check wants. */
export const TINY_LENGTHS = [
  "--prompt-tokens",
  "20",
  "--prompt-tokens-stdev",
  "5",
  "--prompt-tokens-min",
  "2",
  "--prompt-tokens-max",
  "50",
  "--output-tokens",
  "5",
  "--output-tokens-stdev",
  "2",
  "--output-tokens-min",
  "2",
  "--output-tokens-max",
  "10",
];

/** Valid bases that simulate 1-4 requests: trained-physics, blackbox, roofline, a weighted cluster, a preset. */
export const baseArb: fc.Arbitrary<string[]> = fc
  .tuple(fc.constantFrom("1", "2", "3", "4"), fc.constantFrom(0, 0, 0, 1, 1, 1, 2, 2, 3, 3, 4))
  .map(
    ([n, k]) =>
      [
        ["--model", LLAMA, "--num-requests", n, "--rate", "100", ...TINY_LENGTHS],
        [...QUIET_MODEL, "--num-requests", n, "--rate", "50", ...TINY_LENGTHS],
        [
          "--model",
          LLAMA,
          "--latency-model",
          "roofline",
          "--hardware",
          "H100",
          "--tp",
          "1",
          "--num-requests",
          n,
          ...TINY_LENGTHS,
        ],
        [
          "--model",
          LLAMA,
          "--num-instances",
          "3",
          "--routing-policy",
          "weighted",
          "--num-requests",
          n,
          "--rate",
          "200",
          ...TINY_LENGTHS,
        ],
        // Presets ignore the length flags: one request of up to 1024 output tokens, cut short.
        ["--model", LLAMA, "--workload", "chatbot", "--num-requests", "1", "--horizon", "300000"],
      ][k]!,
  );

interface Entry {
  tokens: string[];
  value: Value | null;
}

const flagEntry: fc.Arbitrary<Entry> = fc
  .tuple(
    fc.constantFrom(...FLAG_GENS),
    fc.constantFrom("sep", "sep", "sep", "sep", "sep", "sep", "sep", "eq", "eq", "bare"),
  )
  .chain(([g, form]) =>
    g.value.map((value): Entry => {
      if (form === "bare") return { tokens: [g.flag], value: null };
      return { tokens: form === "eq" ? [`${g.flag}=${value.text}`] : [g.flag, value.text], value };
    }),
  );

/** Unknown or misspelled flags, stray arguments, the option terminator. */
const strayEntry: fc.Arbitrary<Entry> = fc
  .constantFrom<string[]>(
    ["--foo"],
    ["--rates", "1"],
    ["--num-request", "2"],
    ["--Model", "x"],
    ["-x"],
    ["---rate", "1"],
    ["--no-rate"],
    ["--results_path", "r.json"],
    ["extra"],
    ["--"],
    ["--", "--rate", "1"],
    ["-"],
    ["--=1"],
  )
  .map((tokens) => ({ tokens, value: null }));

/** Generated flags to add to a command line. */
export function entriesArb(maxLength: number): fc.Arbitrary<Entry[]> {
  return fc.array(fc.oneof({ weight: 12, arbitrary: flagEntry }, { weight: 1, arbitrary: strayEntry }), { maxLength });
}

/** The tokens of the entries, and the files and directories their values need. */
export function entryParts(entries: Entry[]): { tokens: string[]; files: FuzzFile[]; dirs: string[]; keys: string[] } {
  return {
    tokens: entries.flatMap((e) => e.tokens),
    keys: [...new Set(entries.flatMap((e) => e.value?.keys ?? []))],
    files: entries.flatMap((e) => e.value?.files ?? []),
    dirs: [...new Set(entries.flatMap((e) => e.value?.dirs ?? []))],
  };
}

/** `blis run` with a valid base and up to six generated flags, usually after it. */
export const runCaseArb: fc.Arbitrary<FuzzCase> = fc
  .tuple(baseArb, entriesArb(6), fc.constantFrom("after", "after", "after", "before"))
  .map(([base, entries, where]) => {
    const { tokens, files, dirs, keys } = entryParts(entries);
    const argv = ["run", ...(where === "after" ? [...base, ...tokens] : [...tokens, ...base])];
    return printable({ family: "run", argv, files, dirs, keys });
  });
