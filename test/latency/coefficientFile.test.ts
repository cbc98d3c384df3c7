// A coefficient file whose aliases expand into too many nodes is refused with the flag and file.

import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { loadCoefficientFile } from "../../src/latency/coefficientFile.js";
import { UserError } from "../../src/util/errors.js";

/** Six levels of ten aliases each: a million nodes once expanded. */
const ALIAS_BOMB = [
  "a: &a [x, x, x, x, x, x, x, x, x, x]",
  ..."bcdef".split("").map((k, i) => `${k}: &${k} [${Array(10).fill(`*${"abcde"[i]}`).join(", ")}]`),
].join("\n");

test("an alias bomb in --latency-coeffs is a UserError naming the flag and the file", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "blis-coeffs-"));
  try {
    const file = path.join(dir, "bomb.yaml");
    fs.writeFileSync(file, ALIAS_BOMB + "\n");
    assert.throws(
      () => loadCoefficientFile(file),
      (e: unknown) =>
        e instanceof UserError && e.message.startsWith(`--latency-coeffs: ${file}: Excessive alias count`),
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
