// --speculative-config: what it accepts and what it refuses, one line each, exit status 1 (docs/speculative.md).
import { test } from "node:test";
import assert from "node:assert/strict";
import { parseSpeculativeConfig } from "../../src/speculative/config.js";
import { cli, clusterBlock } from "../helpers/cli.js";

const refused: [string, string][] = [
  [
    '{"method":"ngram","num_speculative_tokens":0,"acceptance_rate":0.5}',
    `"num_speculative_tokens" must be an integer >= 1, got 0`,
  ],
  [
    '{"method":"ngram","num_speculative_tokens":1.5,"acceptance_rate":0.5}',
    `"num_speculative_tokens" must be an integer >= 1, got 1.5`,
  ],
  ['{"method":"ngram","acceptance_rate":0.5}', `"num_speculative_tokens" is required`],
  ['{"method":"medusa","num_speculative_tokens":2,"acceptance_rate":0.5}', `unknown method "medusa"`],
  ['{"method":"draft_model","num_speculative_tokens":2,"acceptance_rate":0.5}', `method "draft_model" needs "model"`],
  ['{"method":"eagle","num_speculative_tokens":2,"acceptance_rate":0.5}', `method "eagle" needs "model"`],
  [
    '{"method":"ngram","num_speculative_tokens":2,"acceptance_rates":[0.5,1.2]}',
    `"acceptance_rates"[1] must be a number in [0, 1], got 1.2`,
  ],
  [
    '{"method":"ngram","num_speculative_tokens":2,"acceptance_rate":-0.1}',
    `"acceptance_rate" must be a number in [0, 1], got -0.1`,
  ],
  [
    '{"method":"ngram","num_speculative_tokens":3,"acceptance_rates":[0.5,0.4]}',
    `one rate per speculative token (3), got 2`,
  ],
  ['{"method":"ngram","num_speculative_tokens":2,"acceptance_rate":0.5,"acceptance_rates":[1,1]}', `not both`],
  [
    '{"method":"ngram","num_speculative_tokens":2}',
    `"acceptance_rates" (one per position) or "acceptance_rate" is required`,
  ],
  ['{"method":"ngram","num_speculative_tokens":2,"acceptance_rate":0.5,"speed":3}', `unknown key "speed"`],
  [
    '{"method":"ngram","num_speculative_tokens":2,"acceptance_rate":0.5,"prompt_lookup_min":5,"prompt_lookup_max":2}',
    `"prompt_lookup_min" (5) must be <= "prompt_lookup_max" (2)`,
  ],
  [
    '{"method":"ngram","num_speculative_tokens":2,"acceptance_rate":0.5,"acceptance_by_slo_class":{"batch":2}}',
    `acceptance_by_slo_class.batch" must be a number in [0, 1]`,
  ],
  ["[1,2]", "must be a JSON object"],
  ["{nope", "not valid JSON"],
];

test("refusals name the key", () => {
  for (const [text, msg] of refused) {
    assert.throws(
      () => parseSpeculativeConfig(text),
      (e: Error) => e.name === "UserError" && e.message.startsWith("--speculative-config: ") && e.message.includes(msg),
      text,
    );
  }
});

test("a rate applies at every position; the method follows the model name when not given", () => {
  const c = parseSpeculativeConfig(
    '{"model":"yuhuili/EAGLE3-LLaMA3.1-Instruct-8B","num_speculative_tokens":3,"acceptance_rate":0.7}',
  );
  assert.equal(c.method, "eagle3");
  assert.deepEqual(c.rates, [0.7, 0.7, 0.7]);
  assert.equal(
    parseSpeculativeConfig('{"model":"small-draft","num_speculative_tokens":1,"acceptance_rate":1}').method,
    "draft_model",
  );
  const o = parseSpeculativeConfig(
    '{"method":"ngram","num_speculative_tokens":2,"acceptance_rates":[0.9,0.5],"acceptance_by_tenant":{"coder":[1,0.8]}}',
  );
  assert.deepEqual(o.byTenant.get("coder"), [1, 0.8]);
});

const RUN = ["run", "--model", "meta-llama/llama-3.1-8b-instruct", "--num-requests", "5", "--rate", "1"];

test("the CLI refuses with one line and exit status 1, before printing anything", async () => {
  for (const [args, msg] of [
    [
      ["--speculative-config", '{"method":"ngram","num_speculative_tokens":0,"acceptance_rate":0.5}'],
      "num_speculative_tokens",
    ],
    [
      [
        "--speculative-config",
        '{"method":"ngram","num_speculative_tokens":2,"acceptance_rate":0.5}',
        "--latency-model",
        "roofline",
      ],
      "prices every decode as one token",
    ],
    [
      [
        "--speculative-config",
        '{"method":"draft_model","model":"no/such-model","num_speculative_tokens":2,"acceptance_rate":0.5}',
      ],
      'draft model "no/such-model"',
    ],
  ] as const) {
    const r = await cli([...RUN, ...args]);
    assert.equal(r.code, 1, r.stderr.join("\n"));
    assert.equal(r.stdout, "");
    const errors = r.stderr.filter((l) => l.startsWith("error:"));
    assert.equal(errors.length, 1);
    assert.ok(errors[0]!.includes(msg), errors[0]);
  }
});

test("speculation adds its block and key; the run without it prints neither", async () => {
  const off = await cli(RUN);
  const on = await cli([
    ...RUN,
    "--speculative-config",
    '{"method":"mtp","num_speculative_tokens":2,"acceptance_rate":0.8}',
  ]);
  assert.equal(off.code, 0);
  assert.equal(on.code, 0);
  assert.ok(!off.stdout.includes("speculative") && !off.stdout.includes("Speculative"));
  assert.ok(on.stdout.includes("=== Speculative Decoding ===\nMethod: mtp, Speculative Tokens: 2\n"));
  assert.ok(on.stdout.includes('"speculative": {'));
  assert.match(on.stdout, /TPOT \(per token\) mean: [0-9.]+ ms/);
});

test("a policy bundle's speculative_config is the same as the flag; the flag wins", async () => {
  const fs = await import("node:fs");
  const os = await import("node:os");
  const path = await import("node:path");
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "spec-"));
  const file = path.join(dir, "bundle.yaml");
  fs.writeFileSync(file, "speculative_config:\n  method: ngram\n  num_speculative_tokens: 3\n  acceptance_rate: 0.6\n");
  const viaBundle = await cli([...RUN, "--policy-config", file]);
  const viaFlag = await cli([
    ...RUN,
    "--speculative-config",
    '{"method":"ngram","num_speculative_tokens":3,"acceptance_rate":0.6}',
  ]);
  assert.equal(viaBundle.code, 0);
  assert.equal(viaBundle.stdout, viaFlag.stdout);
  const both = await cli([
    ...RUN,
    "--policy-config",
    file,
    "--speculative-config",
    '{"method":"ngram","num_speculative_tokens":1,"acceptance_rate":0.6}',
  ]);
  assert.ok(both.stdout.includes("Speculative Tokens: 1\n"));
  fs.rmSync(dir, { recursive: true });
});

test("with PD the decode side speculates and every request completes", async () => {
  const args = [
    ...RUN.slice(0, 3),
    "--num-requests",
    "60",
    "--rate",
    "5",
    "--num-instances",
    "3",
    "--prefill-instances",
    "1",
    "--decode-instances",
    "2",
  ];
  const off = await cli(args);
  const on = await cli([
    ...args,
    "--speculative-config",
    '{"method":"ngram","num_speculative_tokens":3,"acceptance_rate":0.8}',
  ]);
  assert.equal(on.code, 0, on.stderr.join("\n"));
  const a = clusterBlock(off.stdout);
  const b = clusterBlock(on.stdout);
  assert.equal(b["completed_requests"], 60);
  assert.equal(b["total_output_tokens"], a["total_output_tokens"]);
  assert.ok(
    (b["e2e_mean_ms"] as number) < (a["e2e_mean_ms"] as number),
    `E2E ${b["e2e_mean_ms"]} with speculation vs ${a["e2e_mean_ms"]}`,
  );
  // The decode instances verify proposals.
  assert.match(on.stdout, /Drafts: [1-9][0-9]*,/);
});
