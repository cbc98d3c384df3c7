// LoRA configuration: resolution order (file, defaults file, flags), validation messages, inert runs.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { cli } from "../helpers/cli.js";
import { resolveLora } from "../../src/lora/resolve.js";
import { decodeLoraBlock } from "../../src/lora/config.js";
import { Logger } from "../../src/util/log.js";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "lora-config-"));
const file = (name: string, text: string): string => {
  const p = path.join(dir, name);
  fs.writeFileSync(p, text);
  return p;
};
const BASE = ["run", "--model", "meta-llama/llama-3.1-8b-instruct", "--num-requests", "5"];
const ADAPTERS =
  "  adapters:\n    - {id: a, rank: 8}\n    - {id: b, rank: 16, base_model: meta-llama/llama-3.1-8b-instruct}\n";

function captured(): { log: Logger; lines: string[] } {
  const lines: string[] = [];
  return { log: new Logger("warn", (l) => lines.push(l)), lines };
}

test("resolution: the file, then the defaults file's lora block for unset coefficients and tiers, then the flags", () => {
  const { log } = captured();
  const fileBlock = decodeLoraBlock(
    { adapter_capacity: 2, load_base_latency_us: 10, adapters: [{ id: "a", rank: 8 }] },
    "f",
  );
  const defaults = decodeLoraBlock(
    {
      load_base_latency_us: 1500,
      load_bandwidth_bytes_us: 2e6,
      footprint_bytes_per_rank: 3e6,
      step_overhead_tiers: { 8: { k6: 0.02, k7: 1 } },
    },
    "d",
  );
  const r = resolveLora(
    { file: fileBlock, fileName: "f", defaults, defaultsName: "d", flags: { footprintBytesPerRank: 7 } },
    log,
  );
  assert.ok(r.active !== null);
  assert.equal(r.active.capacity, 2);
  assert.equal(r.active.loadBaseLatencyUs, 10, "the file wins over the defaults");
  assert.equal(r.active.loadBandwidthBytesUs, 2e6, "the defaults fill what the file leaves unset");
  assert.equal(r.active.footprintBytesPerRank, 7, "a flag wins over both");
  assert.deepEqual(r.active.tiers, [{ rank: 8, k6: 0.02, k7: 1 }]);
  const cap = resolveLora(
    { file: fileBlock, fileName: "f", defaults, defaultsName: "d", flags: { adapterCapacity: 5 } },
    log,
  );
  assert.equal(cap.active!.capacity, 5);
});

test("adapters without a capacity: a warning and LoRA stays off; flags without adapters: a warning", () => {
  const { log, lines } = captured();
  const block = decodeLoraBlock({ adapters: [{ id: "a", rank: 8 }] }, "f");
  const r = resolveLora({ file: block, fileName: "f", defaults: null, defaultsName: "", flags: {} }, log);
  assert.equal(r.active, null);
  assert.ok(r.registry !== null && r.registry.has("a"));
  assert.match(lines.join("\n"), /no adapter capacity is set/);
  const w = captured();
  resolveLora({ file: null, fileName: "", defaults: null, defaultsName: "", flags: { adapterCapacity: 3 } }, w.log);
  assert.match(w.lines.join("\n"), /--lora-adapter-capacity has no effect/);
});

test("validation errors name the key or flag, one line, exit status 1", async () => {
  const cases: [string, string[], RegExp][] = [
    ["dup", [], /lora\.adapters\[1\]\.id: duplicate adapter ID "a"/],
    ["rank", [], /lora\.adapters\[0\]\.rank must be an integer > 0, got 0/],
    ["empty", [], /lora\.adapters\[0\]\.id must be non-empty/],
    ["cap", [], /lora\.adapter_capacity must be > 0, got 0/],
    ["bw", [], /lora\.load_bandwidth_bytes_us must be > 0, got 0/],
    ["base", [], /lora\.load_base_latency_us must be >= 0, got -1/],
    ["k7", [], /lora\.step_overhead_tiers\.8\.k7 must be > 0, got 0/],
    ["k6", [], /lora\.step_overhead_tiers\.8\.k6 must be >= 0, got -0\.1/],
    ["tier0", [], /tier rank must be > 0, got 0/],
    ["unknown", [], /unknown field "capacity"/],
    ["ok", ["--lora-adapter-capacity", "0"], /--lora-adapter-capacity must be > 0, got 0/],
    [
      "ok",
      ["--lora-load-bandwidth-bytes-us", "-3"],
      /--lora-load-bandwidth-bytes-us must be a finite value > 0, got -3/,
    ],
    [
      "ok",
      ["--lora-footprint-bytes-per-rank", "0"],
      /--lora-footprint-bytes-per-rank must be a finite value > 0, got 0/,
    ],
    ["ok", ["--lora-load-base-latency-us", "-1"], /--lora-load-base-latency-us must be a finite value >= 0, got -1/],
  ];
  const texts: Record<string, string> = {
    dup: "lora:\n  adapter_capacity: 1\n  adapters:\n    - {id: a, rank: 8}\n    - {id: a, rank: 8}\n",
    rank: "lora:\n  adapter_capacity: 1\n  adapters:\n    - {id: a, rank: 0}\n",
    empty: "lora:\n  adapter_capacity: 1\n  adapters:\n    - {id: '', rank: 8}\n",
    cap: "lora:\n  adapter_capacity: 0\n" + ADAPTERS,
    bw: "lora:\n  adapter_capacity: 1\n  load_bandwidth_bytes_us: 0\n" + ADAPTERS,
    base: "lora:\n  adapter_capacity: 1\n  load_base_latency_us: -1\n" + ADAPTERS,
    k7: "lora:\n  adapter_capacity: 1\n  step_overhead_tiers: {8: {k6: 0.1, k7: 0}}\n" + ADAPTERS,
    k6: "lora:\n  adapter_capacity: 1\n  step_overhead_tiers: {8: {k6: -0.1, k7: 1}}\n" + ADAPTERS,
    tier0: "lora:\n  adapter_capacity: 1\n  step_overhead_tiers: {0: {k6: 0.1, k7: 1}}\n" + ADAPTERS,
    unknown: "lora:\n  capacity: 1\n" + ADAPTERS,
    ok: "lora:\n  adapter_capacity: 1\n" + ADAPTERS,
  };
  for (const [name, extra, re] of cases) {
    const r = await cli([...BASE, "--lora-config", file(`${name}.yaml`, texts[name]!), ...extra]);
    assert.equal(r.code, 1, `${name} ${extra.join(" ")}: ${r.stderr.join("\n")}`);
    assert.equal(r.stdout, "", "nothing printed before the run");
    const errors = r.stderr.filter((l) => l.startsWith("error: "));
    assert.equal(errors.length, 1);
    assert.match(errors[0]!, re);
  }
});

test("workload references: unknown adapter, no registry and a base-model mismatch are fatal", async () => {
  const lora = file("refs.yaml", "lora:\n  adapter_capacity: 1\n" + ADAPTERS);
  const spec = (adapter: string, model = ""): string =>
    file(
      `spec-${adapter}-${model === "" ? "none" : "m"}.yaml`,
      `version: "2"\nseed: 1\naggregate_rate: 10\nnum_requests: 5\nclients:\n  - {id: c, rate_fraction: 1, adapter: ${adapter}, ${model === "" ? "" : `model: ${model}, `}arrival: {process: poisson}, input_distribution: {type: constant, params: {value: 20}}, output_distribution: {type: constant, params: {value: 5}}}\n`,
    );
  const unknown = await cli([...BASE, "--workload-spec", spec("zz"), "--lora-config", lora]);
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr.join("\n"), /error: client\[0\]: unknown adapter "zz" \(declared: a, b\)/);
  const none = await cli([...BASE, "--workload-spec", spec("a")]);
  assert.equal(none.code, 1);
  assert.match(none.stderr.join("\n"), /error: client\[0\]: adapter "a" is used but no LoRA adapters are declared/);
  const mismatch = await cli([...BASE, "--workload-spec", spec("b", "other/model"), "--lora-config", lora]);
  assert.equal(mismatch.code, 1);
  assert.match(mismatch.stderr.join("\n"), /error: client\[0\]: model "other\/model" differs from the base_model/);
});

test("inert: adapters declared without a capacity leave stdout byte-identical", async () => {
  const lora = file("inert.yaml", "lora:\n" + ADAPTERS);
  const plain = await cli(BASE);
  const inert = await cli([...BASE, "--lora-config", lora]);
  assert.equal(inert.code, 0, inert.stderr.join("\n"));
  assert.equal(inert.stdout, plain.stdout);
  assert.match(inert.stderr.join("\n"), /no adapter capacity is set/);
});

test("an explicit --total-kv-blocks is used as given, with a warning; derived blocks shrink by the reservation", async () => {
  const lora = file("kv.yaml", "lora:\n  adapter_capacity: 64\n  footprint_bytes_per_rank: 1.0e8\n" + ADAPTERS);
  const given = await cli([...BASE, "--lora-config", lora, "--total-kv-blocks", "5000", "--log", "info"]);
  assert.equal(given.code, 0, given.stderr.join("\n"));
  assert.match(given.stderr.join("\n"), /--total-kv-blocks is used as given: no KV memory is set aside/);
  assert.match(given.stderr.join("\n"), /Starting simulation with 5000 KV blocks/);
  const blocks = (r: { stderr: string[] }): number =>
    Number(/auto-calculated total-kv-blocks=(\d+)/.exec(r.stderr.join("\n"))![1]);
  const plain = await cli([...BASE, "--log", "info"]);
  const derived = await cli([...BASE, "--lora-config", lora, "--log", "info"]);
  // 64 slots × 1e8 B/rank × rank 16 = 102.4 GB would not fit; the run fails naming the reservation instead.
  assert.ok(derived.code === 1 || blocks(derived) < blocks(plain));
  const small = file("kv2.yaml", "lora:\n  adapter_capacity: 8\n  footprint_bytes_per_rank: 1.0e7\n" + ADAPTERS);
  const fit = await cli([...BASE, "--lora-config", small, "--log", "info"]);
  assert.equal(fit.code, 0, fit.stderr.join("\n"));
  // 8 × 1e7 × 16 = 1.28e9 bytes ≈ 1.19 GiB fewer for KV.
  assert.ok(blocks(fit) < blocks(plain), `${blocks(fit)} < ${blocks(plain)}`);
});
