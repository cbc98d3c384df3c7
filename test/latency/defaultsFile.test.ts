// A defaults file that cannot be read or parsed is named in the error, since it may not be the bundled one.

import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { loadDefaultsFile } from "../../src/latency/defaultsFile.js";

test("a defaults file that is missing, with broken YAML, an alias bomb or a wrong field is named in the error", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "blis-defaults-"));
  try {
    const broken = path.join(dir, "broken.yaml");
    fs.writeFileSync(broken, "models: [\n");
    assert.throws(
      () => loadDefaultsFile(broken),
      (e: Error) => e.message.startsWith(`Failed to parse defaults YAML ${broken}: `),
    );
    assert.throws(
      () => loadDefaultsFile(""),
      (e: Error) => e.message === 'Failed to read defaults file "" (--defaults-filepath): ENOENT',
    );
    const bomb = path.join(dir, "bomb.yaml");
    const levels = "bcdef".split("").map((k, i) => `${k}: &${k} [${Array(10).fill(`*${"abcde"[i]}`).join(", ")}]`);
    fs.writeFileSync(bomb, ["a: &a [x, x, x, x, x, x, x, x, x, x]", ...levels].join("\n"));
    assert.throws(
      () => loadDefaultsFile(bomb),
      (e: Error) => e.message.startsWith(`Failed to parse defaults YAML ${bomb}: Excessive alias count`),
    );
    const wrong = path.join(dir, "wrong.yaml");
    fs.writeFileSync(wrong, "models:\n  - id: m\n    GPU: H100\n");
    assert.throws(
      () => loadDefaultsFile(wrong),
      (e: Error) => e.message.startsWith(`Failed to parse defaults YAML ${wrong}: models.0.`),
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
