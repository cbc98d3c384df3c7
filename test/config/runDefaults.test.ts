// Every default `blis run --help` prints is the value a run uses when the flag is absent: defaults
// live in the run-option schema, and the flag table prints them (src/config/runFlags.ts).
import { test } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { runFlags, printedDefault, type AnyFlagDef } from "../../src/config/runFlags.js";
import { flagParser } from "../../src/config/parseFlagValue.js";
import { BUNDLED_DEFAULTS, PACKAGE_ROOT } from "../../src/util/paths.js";
import { selectBackend } from "../../src/latency/backends/select.js";
import { RunOptionsSchema, type RunOptions } from "../../src/config/runOptions.js";
import { selectScorers } from "../../src/sim/validatePolicies.js";
import { silentLogger } from "../../src/util/log.js";
import { cli } from "../helpers/cli.js";
import { options } from "../sim/helpers.js";

/** Options of the command itself (what stderr shows), not simulation flags. */
const CLI_ONLY = new Set(["--progress", "--no-progress"]);

/** Each option of `run --help` with the default it prints (null when it prints none). */
async function printedDefaults(): Promise<Map<string, string | null>> {
  const res = await cli(["run", "--help"]);
  assert.equal(res.code, 0);
  const out = new Map<string, string | null>();
  for (const line of res.stdout.split("\n")) {
    const m = /^ {2}(--[a-z0-9-]+)\S*(?: <[^>]+>| \[bool\])?\s+(.*)$/.exec(line);
    if (m === null || m[1] === "--help" || CLI_ONLY.has(m[1]!)) continue;
    const d = /\(default ([^()]*)\)(?: \(preset: "true"\))?$/.exec(m[2]!);
    out.set(m[1]!, d === null ? null : d[1]!);
  }
  return out;
}

/** Printed defaults that describe where the value comes from rather than spelling it. */
const DESCRIBED: Record<string, (printed: string | null, o: RunOptions & Readonly<Record<string, unknown>>) => void> = {
  // "" and 0 mean "take it from the defaults file" in latency resolution.
  "--hardware": (p, o) => assert.deepEqual([p, o.hardware], ["from the defaults file", ""]),
  "--vllm-version": (p, o) => assert.deepEqual([p, o.vllmVersion], ["from the defaults file", ""]),
  "--latency-model": (p, o) => {
    assert.equal(o.latencyModel, "", "absent, the other flags choose the backend");
    const choice = selectBackend({
      latencyModel: null,
      roofline: o.roofline,
      vllmVersion: o.vllmVersion,
      alpha: null,
      beta: null,
    });
    assert.equal(p, choice.name);
  },
  "--defaults-filepath": (p, o) => {
    assert.equal(o.defaultsFilepath, BUNDLED_DEFAULTS);
    assert.equal(p, `bundled ${path.relative(PACKAGE_ROOT, BUNDLED_DEFAULTS).split(path.sep).join("/")}`);
  },
  // Absent: 3 when a policy bundle selects tier-shed, else 0 (the help text says so).
  "--tier-shed-min-priority": (p, o) =>
    assert.deepEqual([p, o.tierShedMinPriority], ["3 from a policy bundle, else 0", undefined]),
  // LoRA: absent flags leave the value to the --lora-config file and the defaults file.
  "--lora-adapter-capacity": (p, o) => assert.deepEqual([p, o.loraAdapterCapacity], ["from --lora-config", undefined]),
  "--lora-load-base-latency-us": (p, o) =>
    assert.deepEqual([p, o.loraLoadBaseLatencyUs], ["from --lora-config, else the defaults file", undefined]),
  "--lora-load-bandwidth-bytes-us": (p, o) =>
    assert.deepEqual([p, o.loraLoadBandwidthBytesUs], ["from --lora-config, else the defaults file", undefined]),
  "--lora-footprint-bytes-per-rank": (p, o) =>
    assert.deepEqual([p, o.loraFootprintBytesPerRank], ["from --lora-config, else the defaults file", undefined]),
  "--lora-scorer-weight": (p, o) =>
    assert.deepEqual([p, o.loraScorerWeight], ["none: lora-affinity not added", undefined]),
  "--routing-scorers": (p, o) => {
    assert.equal(o.routingScorers, "");
    const used = selectScorers({ ...o, routingPolicy: "weighted" }, [], silentLogger);
    assert.equal(p, used.map((s) => `${s.name}:${s.weight}`).join(","));
  },
};

function checkLiteral(f: AnyFlagDef, printed: string | null, absent: unknown): void {
  if (f.type === "strings") {
    assert.equal(printed, null, `${f.flag}: repeatable flags print no default`);
    assert.deepEqual(absent, [], f.flag);
  } else if (printed === null) {
    assert.equal(absent, "", `${f.flag} prints no default, so it must default to empty`);
  } else {
    assert.deepEqual(flagParser(f.type, f.flag)(printed, undefined), absent, `${f.flag}: printed default ${printed}`);
  }
}

test("every default printed by run --help is the value used when the flag is absent", async () => {
  const printed = await printedDefaults();
  const flags = runFlags();
  assert.deepEqual(
    [...printed.keys()].sort(),
    flags.map((f) => f.flag).sort(),
    "the help lists exactly the flag table",
  );
  // The model is required; every other option takes its default.
  const { o } = options();
  for (const f of flags) {
    if (f.key === "model") continue;
    const p = printed.get(f.flag) ?? null;
    const described = DESCRIBED[f.flag];
    if (described !== undefined) described(p, o);
    else checkLiteral(f, p, (o as Record<string, unknown>)[f.key]);
  }
});

test("printed defaults: lists comma-joined, the unbounded horizon as Go's max int64", () => {
  const shape = RunOptionsSchema.shape;
  assert.equal(printedDefault(shape.alphaCoeffs), "0,0,0");
  assert.equal(printedDefault(shape.horizon), "9223372036854775807");
  assert.equal(printedDefault(shape.plugin), "");
  assert.equal(printedDefault(shape.workloadSpecObject), "");
  assert.equal(printedDefault(shape.sloAgeWeight), "0.00001");
});
