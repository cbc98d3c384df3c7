// Precedence of the workload sources (docs/behavior.md "Sources and precedence" and "Closed-loop
// load"): over every combination of the selecting options, the registry selects the source the
// rules have always selected, and resolving refuses with the same messages in the same order.
import { test } from "node:test";
import assert from "node:assert/strict";
import "../../../src/workload/sources/builtins.js";
import { selectSource, workloadSources } from "../../../src/workload/sources/registry.js";
import { resolveWorkload, type ResolvedWorkload } from "../../../src/sim/resolveWorkload.js";
import type { RunInput } from "../../../src/config/runOptions.js";
import { UserError } from "../../../src/util/errors.js";
import { silentLogger } from "../../../src/util/log.js";
import { options } from "../../sim/helpers.js";

/** The options that pick a source or are refused with one (files named here do not exist). */
interface Combo {
  replayTrace?: string;
  workloadSpec?: string;
  workloadSpecObject?: Record<string, unknown>;
  workload?: string;
  concurrency?: number;
  thinkTimeMs?: number;
  timeout?: number;
  rate?: number;
}

const choices = <K extends keyof Combo>(key: K, values: readonly (Combo[K] | undefined)[]): Combo[] =>
  values.map((v) => (v === undefined ? {} : { [key]: v }));

function combos(): Combo[] {
  const axes: Combo[][] = [
    choices("replayTrace", [undefined, "missing-trace.yaml"]),
    [{}, { workloadSpec: "missing-spec.yaml" }, { workloadSpecObject: { clients: "none" } }],
    choices("workload", [undefined, "distribution", "", "traces", "chatbot", "nosuch"]),
    choices("concurrency", [undefined, -1, 2]),
    choices("thinkTimeMs", [undefined, -1]),
    choices("timeout", [undefined, 0, 5]),
    choices("rate", [undefined, 0, 2]),
  ];
  return axes.reduce<Combo[]>((acc, axis) => acc.flatMap((c) => axis.map((v) => ({ ...c, ...v }))), [{}]);
}

const isDistribution = (c: Combo): boolean =>
  c.workload === undefined || c.workload === "distribution" || c.workload === "";
const hasSpec = (c: Combo): boolean => c.workloadSpecObject !== undefined || c.workloadSpec !== undefined;

/** The source the rules select. */
function expectedSource(c: Combo): string {
  if (c.replayTrace !== undefined) return "replay-trace";
  if (hasSpec(c)) return "workload-spec";
  if (c.workload === "traces") return "csv-trace";
  if (isDistribution(c)) return (c.concurrency ?? 0) > 0 ? "closed-loop" : "distribution";
  return "preset";
}

/** The refusal of the closed-loop and timeout rules, which come before any source runs. */
function expectedRefusal(c: Combo): string | null {
  const users = c.concurrency ?? 0;
  if (users < 0) return `--concurrency must be >= 0, got ${users}`;
  if ((c.thinkTimeMs ?? 0) < 0) return `--think-time-ms must be >= 0, got ${c.thinkTimeMs}`;
  if (c.timeout === 0) return "--timeout must be positive (seconds) or negative to disable; got 0";
  if (users === 0) return null;
  if (c.rate !== undefined) return "--concurrency and --rate are mutually exclusive; use one or the other";
  if (hasSpec(c)) {
    return "--concurrency cannot be used with --workload-spec; define concurrency in the spec file using clients[].concurrency instead";
  }
  if (c.replayTrace !== undefined)
    return "--concurrency cannot be used with --replay-trace; the trace fixes every arrival";
  if (!isDistribution(c)) {
    return `--concurrency cannot be used with --workload ${c.workload}; virtual users take the distribution-mode length flags`;
  }
  return null;
}

/** The first thing the selected source says about these inputs: a refusal, or the workload it made. */
function expectedFromSource(source: string, c: Combo): RegExp | ((w: ResolvedWorkload) => boolean) {
  const rateRefused = /^--rate must be a finite value > 0, got 0$/;
  const open = (w: ResolvedWorkload): boolean => w.sessions === null && w.requestCap === 5;
  switch (source) {
    case "replay-trace":
      return /^--replay-trace-data: trace data file missing-trace\.csv not found \(give it with --replay-trace-data\)$/;
    case "workload-spec":
      return /^Failed to load workload spec: /;
    case "csv-trace":
      return /^--workload-traces-filepath is required when using --workload traces$/;
    case "closed-loop":
      return (w) => w.sessions !== null && w.sessions !== undefined && w.requestCap === 5;
    case "distribution":
      return c.rate === 0 ? rateRefused : open;
    default:
      if (c.rate === 0) return rateRefused;
      return c.workload === "nosuch" ? /^Undefined workload "nosuch"\. Use one among / : open;
  }
}

function resolve(c: Combo): ResolvedWorkload | string {
  const input: RunInput = { numRequests: 5, ...c };
  const { o, explicit } = options(input);
  try {
    return resolveWorkload(o, explicit, silentLogger);
  } catch (e) {
    assert.ok(e instanceof UserError, `${JSON.stringify(c)}: ${String(e)}`);
    return e.message;
  }
}

test("the registry selects the source the precedence rules select, for every combination", () => {
  const registered = new Set(workloadSources.ranked().map((s) => s.name));
  const all = combos();
  assert.equal(all.length, 2 * 3 * 6 * 3 * 2 * 3 * 3);
  for (const c of all) {
    const want = expectedSource(c);
    assert.ok(registered.has(want), want);
    const { o } = options({ numRequests: 5, ...c });
    assert.equal(selectSource(workloadSources.bind(o)).name, want, JSON.stringify(c));
  }
});

test("resolving refuses in the rules' order, then the selected source speaks first", () => {
  for (const c of combos()) {
    const got = resolve(c);
    const refusal = expectedRefusal(c);
    const what = JSON.stringify(c);
    if (refusal !== null) {
      assert.equal(got, refusal, what);
      continue;
    }
    const want = expectedFromSource(expectedSource(c), c);
    if (want instanceof RegExp) assert.match(typeof got === "string" ? got : "(a workload)", want, what);
    else assert.ok(typeof got !== "string" && want(got), `${what}: ${typeof got === "string" ? got : "workload"}`);
  }
});

test("the built-in sources are asked replay, spec, CSV trace, closed loop, distribution, preset", () => {
  const builtins = ["replay-trace", "workload-spec", "csv-trace", "closed-loop", "distribution", "preset"];
  assert.deepEqual(
    workloadSources
      .ranked()
      .map((s) => s.name)
      .filter((n) => builtins.includes(n)),
    builtins,
  );
});
