import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { runInputProblem } from "../../src/sim/runInputProblem.js";
import { UserError } from "../../src/util/errors.js";

const MODEL = "meta-llama/llama-3.1-8b-instruct";

test("valid run options pass without a simulation", async () => {
  assert.equal(await runInputProblem({ model: MODEL, numRequests: 2 }), null);
});

test("invalid run options give the error the run would stop with", async () => {
  const e = await runInputProblem({ model: MODEL, numRequests: 2, numInstances: 0 });
  assert.ok(e instanceof UserError);
  assert.equal(e.message, "--num-instances must be > 0, got 0");
});

test("plugin code never runs: the checks end where the plugins would load", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "blis-runinput-"));
  const plugin = path.join(dir, "marks.mjs");
  const mark = path.join(dir, "loaded");
  fs.writeFileSync(plugin, `import fs from "node:fs";\nfs.writeFileSync(${JSON.stringify(mark)}, "");\n`);
  assert.equal(await runInputProblem({ model: MODEL, numRequests: 2, plugin: [plugin] }), null);
  assert.equal(fs.existsSync(mark), false);
  // Checks before the plugins still apply.
  const e = await runInputProblem({ model: MODEL, numRequests: 2, numInstances: 0, plugin: [plugin] });
  assert.ok(e instanceof UserError);
});
