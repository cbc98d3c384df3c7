// The kernels model's one-line notes where a run leaves the measured tables (docs/latency.md
// "Interpolation and extrapolation"): what they name, and that an exact deployment makes none.

import { test } from "node:test";
import assert from "node:assert/strict";
import { LLAMA_8B, resolveKernels } from "./helpers.js";

const notesOf = (warnings: string[]): string[] => warnings.filter((l) => l.includes("extrapolated"));

test("notes: a deployment whose shapes are all measured makes no note", async () => {
  const { warnings } = await resolveKernels(LLAMA_8B, "H100", 2);
  assert.deepEqual(notesOf(warnings), []);
});

test("notes: an unmeasured all-reduce degree names the degrees this table has", async () => {
  // The RTX PRO 6000 vLLM 0.19.0 table has the custom all-reduce at TP 2 only.
  const { warnings } = await resolveKernels(LLAMA_8B, "RTX-PRO-6000", 4);
  const notes = notesOf(warnings);
  assert.equal(notes.length, 1, notes.join("\n"));
  assert.match(
    notes[0]!,
    /RTX-PRO-6000 vLLM 0\.19\.0\): extrapolated: TP 4 all-reduce not measured \(measured at TP 2\): ring all-reduce/,
  );
  // The 0.24.0 table has TP 4: no note.
  assert.deepEqual(notesOf((await resolveKernels(LLAMA_8B, "RTX-PRO-6000", 4, { vllmVersion: "0.24" })).warnings), []);
});

test("notes: an attention shape between measured ones names both shapes", async () => {
  const { warnings } = await resolveKernels("qwen/qwen2.5-7b-instruct", "H100", 1);
  assert.deepEqual(
    notesOf(warnings).map((l) => l.replace(/^.*extrapolated: /, "").replace(/"$/, "")),
    // Decode attention is built first (a prefill chunk reading cached KV is at least a decode).
    [
      "decode attention heads/kv-heads/head-dim 28/4/128 scaled from 32/4/128",
      "prefill attention heads/kv-heads/head-dim 28/4/128 scaled from 32/4/128",
    ],
  );
});
