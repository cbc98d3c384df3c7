import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { UserError } from "../../src/util/errors.js";
import { loadHardwareConfig, parseHardwareConfigs, selectHardware } from "../../src/latency/hardwareConfig.js";
import { DATA_DIR } from "./helpers.js";

const BUNDLED = join(DATA_DIR, "hardware_config.json");

test("bundled H100 entry", () => {
  assert.deepEqual(loadHardwareConfig(BUNDLED, "H100"), {
    tFlopsPeak: 989.5,
    tFlopsFP8: 0,
    bwPeakTBs: 3.35,
    bwEffConstant: 0.72,
    tOverheadMicros: 500,
    perLayerOverhead: 20,
    mfuPrefill: 0.65,
    mfuDecode: 0.12,
    allReduceLatency: 20,
    memoryGiB: 80,
  });
  const a100 = loadHardwareConfig(BUNDLED, "A100-80");
  assert.equal(a100.tFlopsPeak, 312);
  assert.equal(a100.bwPeakTBs, 2.039);
  assert.deepEqual(loadHardwareConfig(BUNDLED, "A100-SXM"), a100);
});

test("unknown GPU: exact message with the sorted names", () => {
  assert.throws(
    () => loadHardwareConfig(BUNDLED, "B200"),
    (e: unknown) =>
      e instanceof UserError &&
      e.message ===
        'Failed to load hardware config: GPU "B200" not found in hardware config (available: [A100-80 A100-SXM H100])',
  );
  // GPU names are case-sensitive.
  assert.throws(() => loadHardwareConfig(BUNDLED, "h100"), /GPU "h100" not found/);
  assert.throws(
    () => selectHardware(new Map(), "X"),
    /^Error: GPU "X" not found in hardware config \(available: \[\]\)$/,
  );
});

test("field names are matched case-insensitively; unknown keys and null ignored", () => {
  const m = parseHardwareConfigs(
    JSON.stringify({
      G: {
        _comment: "ignored",
        tflopspeak: 100,
        BWPEAKTBS: 2,
        bweffconstant: 0.5,
        toverheadmicros: 7,
        PerLayerOverhead: 3,
        MFUPREFILL: 0.4,
        MfuDecode: 0.1,
        AllReduceLatency: 9,
        memorygib: 40,
        Unknown: "text is fine here",
        TFlopsFP8: 2000,
      },
      N: { TFlopsPeak: null },
    }),
  );
  assert.deepEqual(m.get("G"), {
    tFlopsPeak: 100,
    tFlopsFP8: 2000,
    bwPeakTBs: 2,
    bwEffConstant: 0.5,
    tOverheadMicros: 7,
    perLayerOverhead: 3,
    mfuPrefill: 0.4,
    mfuDecode: 0.1,
    allReduceLatency: 9,
    memoryGiB: 40,
  });
  assert.equal(m.get("N")!.tFlopsPeak, 0);
  // Missing fields are 0.
  assert.equal(parseHardwareConfigs('{"E": {}}').get("E")!.mfuDecode, 0);
  // Go's folding also maps the Kelvin sign and long s.
  assert.equal(parseHardwareConfigs('{"E": {"BwPea\u212aTB\u017f": 4}}').get("E")!.bwPeakTBs, 4);
});

test("malformed hardware files", () => {
  assert.throws(() => parseHardwareConfigs("{"), /^Error: parse hardware config JSON: /);
  assert.throws(() => parseHardwareConfigs("[]"), /expected an object keyed by GPU name, got array/);
  assert.throws(() => parseHardwareConfigs('{"H": 5}'), /entry "H" must be an object, got number/);
  assert.throws(
    () => parseHardwareConfigs('{"H": {"mfuDecode": "0.1"}}'),
    /"H"\.mfuDecode must be a number \(field mfuDecode\), got string/,
  );
  // Keys such as "constructor" are plain GPU names.
  assert.throws(() => selectHardware(parseHardwareConfigs('{"H": {}}'), "constructor"), /not found/);
  assert.equal(selectHardware(parseHardwareConfigs('{"constructor": {"TFlopsPeak": 1}}'), "constructor").tFlopsPeak, 1);
});

test("file errors are one-line user errors", () => {
  const dir = mkdtempSync(join(tmpdir(), "blis-hw-"));
  try {
    const missing = join(dir, "nope.json");
    assert.throws(
      () => loadHardwareConfig(missing, "H100"),
      (e: unknown) =>
        e instanceof UserError &&
        e.message === `Failed to load hardware config: read hardware config "${missing}": no such file or directory`,
    );
    const bad = join(dir, "bad.json");
    writeFileSync(bad, "{\n  oops\n}");
    assert.throws(
      () => loadHardwareConfig(bad, "H100"),
      (e: unknown) =>
        e instanceof UserError &&
        /^Failed to load hardware config: parse hardware config JSON: /.test(e.message) &&
        !e.message.includes("\n"),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
