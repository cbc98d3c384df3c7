// The README's calibration walk-through runs as written on the bundled data: convert a measured
// CSV to a trace v2, fit, replay, calibrate and run with the fitted coefficients.

import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { cli, clusterBlock, splitArgs } from "../helpers/cli.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

/** The commands of the code block under "Calibrating to your own deployment". */
function walkThrough(): string[] {
  const readme = fs.readFileSync(path.join(ROOT, "README.md"), "utf8");
  const at = readme.indexOf("### Calibrating to your own deployment");
  assert.ok(at >= 0, "README lost its calibration section");
  const block = /```sh\n([\s\S]*?)```/.exec(readme.slice(at));
  assert.ok(block, "no command block in the calibration section");
  return block[1]!.split("\n").filter((l) => l.startsWith("npx blis "));
}

test("the README's calibration walk-through runs as written on bundled data", async () => {
  const lines = walkThrough();
  assert.deepEqual(
    lines.map((l) => splitArgs(l)[2]),
    ["convert", "fit", "replay", "calibrate", "run"],
  );
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "blis-calibration-readme-"));
  const cwd = process.cwd();
  // Outputs go to a scratch directory; paths of the repository (data/...) are read from it.
  process.chdir(dir);
  try {
    const out: Record<string, string> = {};
    for (const line of lines) {
      const args = splitArgs(line)
        .slice(2)
        .map((a) => (a.includes("/") && fs.existsSync(path.join(ROOT, a)) ? path.join(ROOT, a) : a));
      const r = await cli(args);
      assert.equal(r.code, 0, `${line}: ${r.stderr.join("\n")}`);
      out[args[0]!] = r.stdout;
    }
    for (const f of ["run.yaml", "run.csv", "mine.yaml", "sim.json"]) assert.ok(fs.statSync(f).size > 0, f);
    const rows = fs.readFileSync("run.csv", "utf8").trim().split("\n").length - 1;
    assert.equal(rows, 7200);
    const sim = JSON.parse(fs.readFileSync("sim.json", "utf8")) as unknown[];
    assert.equal(sim.length, 7200, "every measured request replayed");
    // The fitted coefficients predict the run they were fitted on within the README's own terms.
    const ttft = /TTFT MAPE ([\d.]+)%/.exec(out["calibrate"]!);
    assert.ok(ttft !== null && Number(ttft[1]) < 25, out["calibrate"]);
    assert.equal(clusterBlock(out["run"]!)["completed_requests"], 500);
  } finally {
    process.chdir(cwd);
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
