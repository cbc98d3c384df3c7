// The detectors on `blis run` and `blis replay`: labels in the metrics, the report file, and the
// one-line errors of their flags (docs/saturation.md "Flags").
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { cli, clusterBlock } from "../helpers/cli.js";

const RUN = ["run", "--model", "meta-llama/llama-3.1-8b-instruct", "--num-requests", "300"];
const tmp = (): string => fs.mkdtempSync(path.join(os.tmpdir(), "blis-sat-"));

test("--detectors all labels the run; the report holds the final labels and one record per event and detector", async () => {
  const dir = tmp();
  const report = path.join(dir, "sat.json");
  const r = await cli([
    ...RUN,
    "--rate",
    "60",
    "--detectors",
    "all",
    "--saturation-report",
    report,
    "--saturation-final-window",
    "10s",
  ]);
  assert.equal(r.code, 0, r.stderr.join("\n"));
  const block = clusterBlock(r.stdout);
  const keys = Object.keys(block);
  assert.equal(keys[keys.indexOf("dropped_unservable") + 1], "saturation");
  const labels = block["saturation"] as unknown as Record<string, string>;
  assert.deepEqual(Object.keys(labels), ["backlog-drift", "composite", "threshold"]);
  assert.equal(labels["composite"], "OVERLOADED", "60 req/s is three times what one instance serves");
  const text = fs.readFileSync(report, "utf8");
  assert.ok(text.endsWith("}\n") && text.startsWith('{\n  "final": {'));
  const data = JSON.parse(text) as { final: Record<string, string>; trace: { time_us: number; detector: string }[] };
  assert.deepEqual(data.final, labels);
  assert.equal(data.trace.length, 300 * 2 * 3);
  assert.deepEqual(
    data.trace.slice(0, 3).map((t) => t.detector),
    ["composite", "threshold", "backlog-drift"],
  );
  for (let i = 1; i < data.trace.length; i++) assert.ok(data.trace[i]!.time_us >= data.trace[i - 1]!.time_us);
  const light = await cli([...RUN, "--rate", "2", "--detectors", "composite"]);
  assert.equal((clusterBlock(light.stdout)["saturation"] as unknown as Record<string, string>)["composite"], "STABLE");
});

test("without --detectors the metrics are unchanged", async () => {
  const a = await cli([...RUN, "--rate", "5"]);
  const b = await cli([...RUN, "--rate", "5", "--detectors", "threshold"]);
  const blockA = clusterBlock(a.stdout);
  const blockB = clusterBlock(b.stdout);
  assert.equal(blockA["saturation"], undefined);
  delete blockB["saturation"];
  assert.deepEqual(blockB, blockA);
});

test("flag and configuration errors are one line naming the flag, before anything runs", async () => {
  const dir = tmp();
  const cfg = (name: string, text: string): string => {
    const p = path.join(dir, name);
    fs.writeFileSync(p, text);
    return p;
  };
  const cases: [string[], RegExp][] = [
    [["--saturation-report", path.join(dir, "x.json")], /^error: --saturation-report requires --detectors$/],
    [["--saturation-final-window", "10s"], /^error: --saturation-final-window requires --detectors$/],
    [["--detectors", "bogus"], /unknown saturation detector "bogus"; valid: composite, threshold, backlog-drift/],
    [["--detectors", "all,threshold"], /"all" cannot be combined/],
    [["--detectors", ",,"], /selects no detector/],
    [["--detectors", "composite", "--saturation-final-window", "0s"], /--saturation-final-window must be positive/],
    [
      ["--detectors", "composite", "--saturation-final-window", "soon"],
      /--saturation-final-window: invalid duration "soon"/,
    ],
    [
      ["--detectors", "composite", "--saturation-config", cfg("a.yaml", "threshold: {threshold_ms: 100}\n")],
      /block "threshold" configures a detector/,
    ],
    [
      ["--detectors", "threshold", "--saturation-config", cfg("b.yaml", "threshold: {threshold_ms: -1}\n")],
      /threshold\.threshold_ms must be finite and > 0, got -1/,
    ],
    [
      ["--detectors", "all", "--saturation-config", cfg("c.yaml", "backlog_drift: {confidence_ci: 1}\n")],
      /confidence_ci must be in \(0, 1\)/,
    ],
    [
      [
        "--detectors",
        "all",
        "--saturation-config",
        cfg("d.yaml", "backlog_drift: {saturated_drain_ratio: 0.9, transient_drain_ratio: 0.5}\n"),
      ],
      /saturated_drain_ratio \(0\.9\) must not exceed transient_drain_ratio/,
    ],
    [
      ["--detectors", "all", "--saturation-config", cfg("e.yaml", "thresold: {}\n")],
      /--saturation-config .*e\.yaml: thresold: unknown key/,
    ],
    [
      ["--detectors", "all", "--saturation-config", path.join(dir, "missing.yaml")],
      /--saturation-config .*missing\.yaml: no such file/,
    ],
    [
      ["--detectors", "all", "--saturation-report", "/proc/self/no/x.json"],
      /^error: --saturation-report .*: cannot create directories in \/proc\/self: .*$/,
    ],
  ];
  for (const [args, re] of cases) {
    const r = await cli([...RUN, ...args]);
    assert.equal(r.code, 1, args.join(" "));
    assert.equal(r.stdout, "", args.join(" "));
    assert.equal(r.stderr.length, 1, `${args.join(" ")}: ${r.stderr.join(" | ")}`);
    assert.match(r.stderr[0]!, re);
  }
  // An empty configuration file is no configuration.
  const ok = await cli([...RUN, "--rate", "5", "--detectors", "all", "--saturation-config", cfg("empty.yaml", "")]);
  assert.equal(ok.code, 0, ok.stderr.join("\n"));
});
