// The README's convert/compose commands, as written, produce specs that `blis run` runs; and a
// converted preset reproduces the preset run byte for byte (docs/behavior.md#w25).

import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { cli, clusterBlock, splitArgs } from "../helpers/cli.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "blis-readme-"));
process.on("exit", () => fs.rmSync(dir, { recursive: true, force: true }));
const M = ["--model", "meta-llama/llama-3.1-8b-instruct"];

test("the README's convert and compose commands give specs that run without extra flags", async () => {
  const lines = fs
    .readFileSync(path.join(ROOT, "README.md"), "utf8")
    .split("\n")
    // `convert measured` writes a trace pair, not a spec (test/cli/calibrationReadme.test.ts runs it).
    .filter((l) => /^npx blis (convert|compose) /.test(l) && !l.startsWith("npx blis convert measured "));
  assert.ok(
    lines.some((l) => l.includes(" compose ")) && lines.some((l) => l.includes(" convert ")),
    "README lost its examples",
  );
  // Files the commands write (into a scratch directory); other relative paths are the repository's.
  const written = new Map<string, string>();
  const resolve = (arg: string): string =>
    written.get(arg) ?? (fs.existsSync(path.join(ROOT, arg)) ? path.join(ROOT, arg) : arg);
  for (const line of lines) {
    const m = /^npx blis (.*) > (\S+)$/.exec(line);
    assert.ok(m, `README command without an output file: ${line}`);
    const r = await cli(splitArgs(m[1]!).map(resolve));
    assert.equal(r.code, 0, `${line}: ${r.stderr.join("\n")}`);
    const out = path.join(dir, m[2]!);
    fs.writeFileSync(out, r.stdout);
    written.set(m[2]!, out);
  }
  for (const [name, file] of written) {
    const r = await cli(["run", ...M, "--workload-spec", file]);
    assert.equal(r.code, 0, `${name}: ${r.stderr.join("\n")}`);
    assert.ok((clusterBlock(r.stdout)["completed_requests"] as number) > 0, name);
  }
  // The README also runs the composed file as it is.
  assert.ok(fs.readFileSync(path.join(ROOT, "README.md"), "utf8").includes("--workload-spec mixed.yaml"));
});

async function converted(args: string[]): Promise<string> {
  const r = await cli(["convert", "preset", ...args]);
  assert.equal(r.code, 0, r.stderr.join("\n"));
  const file = path.join(dir, `preset-${args.join("_")}.yaml`);
  fs.writeFileSync(file, r.stdout);
  return file;
}

test("convert preset then run reproduces run --workload <preset>, with the default and an explicit seed", async () => {
  const flags = ["--rate", "8", "--num-requests", "40"];
  for (const name of ["chatbot", "summarization"]) {
    const preset = await cli(["run", ...M, "--workload", name, ...flags]);
    const viaSpec = await cli(["run", ...M, "--workload-spec", await converted(["--name", name, ...flags])]);
    assert.equal(preset.code, 0, preset.stderr.join("\n"));
    assert.equal(viaSpec.code, 0, viaSpec.stderr.join("\n"));
    assert.equal(viaSpec.stdout, preset.stdout, name);

    const seeded = await cli(["run", ...M, "--workload", name, ...flags, "--seed", "7"]);
    const file = await converted(["--name", name, ...flags, "--seed", "7"]);
    assert.match(fs.readFileSync(file, "utf8"), /^seed: 7$/m);
    const seededSpec = await cli(["run", ...M, "--workload-spec", file, "--seed", "7"]);
    assert.equal(seededSpec.stdout, seeded.stdout, `${name} --seed 7`);
    assert.notEqual(seeded.stdout, preset.stdout, "the seed changes the run");
  }
});
