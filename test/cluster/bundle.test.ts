// Policy bundle (docs/behavior.md "Validation order and exit status") and the --routing-scorers
// grammar (docs/behavior.md "Routing and scorers").
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { loadPolicyBundle } from "../../src/config/policyBundle.js";
import { parseRoutingScorers } from "../../src/config/flagLists.js";
import { scorers } from "../../src/cluster/scorers/scorer.js";
import "../../src/gateway/builtins.js";
import { UserError } from "../../src/util/errors.js";
import { runCli } from "./helpers.js";
import { clusterBlock, withoutLatencyNote } from "../helpers/cli.js";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "blis-bundle-"));
let n = 0;
function bundle(text: string): string {
  const f = path.join(dir, `b${n++}.yaml`);
  fs.writeFileSync(f, text);
  return f;
}
process.on("exit", () => fs.rmSync(dir, { recursive: true, force: true }));

function bundleError(text: string): string {
  try {
    loadPolicyBundle(bundle(text));
  } catch (e) {
    assert.ok(e instanceof UserError, String(e));
    return e.message;
  }
  assert.fail("bundle was accepted");
}

// The valid scorer names an error lists: every registered one, sorted (adding a scorer edits no test).
const VALID_SCORERS = scorers.names().join(", ");

test("bundle: a complete valid file loads", () => {
  const b = loadPolicyBundle(
    bundle(`admission:
  policy: token-bucket
  token_bucket_capacity: 10000
  token_bucket_refill_rate: 1000
routing:
  policy: weighted
  scorers:
    - name: prefix-affinity
      weight: 3
    - name: queue-depth
      weight: 2
priority:
  policy: slo-based
scheduler: priority-fcfs
`),
  );
  assert.equal(b.admission?.policy, "token-bucket");
  assert.deepEqual(b.routing?.scorers, [
    { name: "prefix-affinity", weight: 3 },
    { name: "queue-depth", weight: 2 },
  ]);
  assert.equal(b.scheduler, "priority-fcfs");
  // The shipped example bundles load.
  for (const f of ["policy-config.yaml", "weighted-routing.yaml"]) {
    loadPolicyBundle(new URL(`../../../examples/${f}`, import.meta.url).pathname);
  }
});

test("bundle validation order: admission → routing → priority → scheduler → bucket numbers → scorers", () => {
  assert.equal(
    bundleError("admission: {policy: bogus}\nrouting: {policy: nope}\n"),
    'Invalid policy config: unknown admission policy "bogus"; valid options: always-admit, gaie-legacy, reject-all, slo-gated, tier-shed, token-bucket',
  );
  assert.equal(
    bundleError("routing: {policy: nope}\npriority: {policy: nah}\n"),
    'Invalid policy config: unknown routing policy "nope"; valid options: always-busiest, least-loaded, round-robin, weighted',
  );
  assert.equal(
    bundleError("priority: {policy: nah}\nscheduler: lifo\n"),
    'Invalid policy config: unknown priority policy "nah"; valid options: constant, inverted-slo, slo-based, slo-class, slo-tiered, static-class',
  );
  assert.equal(
    bundleError("scheduler: lifo\nadmission: {token_bucket_capacity: -1}\n"),
    'Invalid policy config: unknown scheduler "lifo"; valid options: fcfs, priority-fcfs, reverse-priority, sjf',
  );
  assert.equal(
    bundleError("admission: {token_bucket_capacity: -1}\nrouting: {scorers: [{name: bogus, weight: 1}]}\n"),
    "Invalid policy config: token_bucket_capacity must be non-negative",
  );
  assert.equal(
    bundleError("admission: {token_bucket_capacity: .inf}\n"),
    "Invalid policy config: token_bucket_capacity must be a finite number",
  );
  assert.equal(
    bundleError("admission: {token_bucket_capacity: .nan}\n"),
    "Invalid policy config: token_bucket_capacity must be a finite number",
  );
  assert.equal(
    bundleError("admission: {token_bucket_capacity: 5, token_bucket_refill_rate: -0.5}\n"),
    "Invalid policy config: token_bucket_refill_rate must be non-negative",
  );
  assert.equal(
    bundleError("routing:\n  scorers:\n    - {name: queue-depth, weight: 1}\n    - {name: bogus, weight: 1}\n"),
    `Invalid policy config: routing scorer[1]: unknown scorer "bogus"; valid: ${VALID_SCORERS}`,
  );
  assert.equal(
    bundleError("routing:\n  scorers:\n    - {name: queue-depth, weight: 1}\n    - {name: queue-depth, weight: 0}\n"),
    'Invalid policy config: routing scorer[1]: duplicate scorer "queue-depth"',
  );
  for (const w of ["0", "-2", ".inf"]) {
    assert.equal(
      bundleError(`routing:\n  scorers:\n    - {name: load-balance, weight: ${w}}\n`),
      'Invalid policy config: routing scorer[0] "load-balance": weight must be a finite positive number',
    );
  }
  // Empty names are allowed (they mean the default) and 0 passes the bundle's own check.
  loadPolicyBundle(bundle('admission: {policy: "", token_bucket_capacity: 0}\nscheduler: ""\n'));
});

test("bundle decoding is strict: unknown keys at any level, with line numbers", () => {
  assert.match(
    bundleError("admission:\n  policy: always-admit\n  bogus: 1\n"),
    /^Failed to load policy config: parsing policy config: .*bogus.*line 3/,
  );
  assert.match(
    bundleError("scheduler: fcfs\nrouting_policy: weighted\n"),
    /^Failed to load policy config: parsing policy config: .*routing_policy.*line 2/,
  );
  assert.match(
    bundleError(
      "routing:\n  policy: weighted\n  scorers:\n    - name: queue-depth\n      weight: 1\n      extra: true\n",
    ),
    /^Failed to load policy config: parsing policy config: .*extra.*line 6/,
  );
  // Wrong types are decoding errors too.
  assert.match(
    bundleError("admission:\n  token_bucket_capacity: lots\n"),
    /^Failed to load policy config: parsing policy config: /,
  );
  assert.match(bundleError("scheduler: [fcfs]\n"), /^Failed to load policy config: parsing policy config: /);
});

test("bundle: an empty file is an error; a missing file names the path", () => {
  assert.match(bundleError(""), /^Failed to load policy config: parsing policy config: /);
  assert.match(bundleError("# only a comment\n"), /^Failed to load policy config: parsing policy config: /);
  assert.throws(
    () => loadPolicyBundle(path.join(dir, "missing.yaml")),
    /^UserError: Failed to load policy config: reading policy config: .*missing\.yaml/,
  );
});

test("precedence: a bundle value applies unless the flag is given, even when the flag equals the default", async () => {
  const f = bundle("admission:\n  policy: reject-all\n");
  const a = await runCli("--policy-config", f);
  assert.equal(a.code, 0);
  assert.equal(clusterBlock(a.stdout)["completed_requests"], 0);
  assert.match(a.stdout, /Rejected Requests: 12\n/);
  const b = await runCli("--policy-config", f, "--admission-policy", "always-admit");
  assert.equal(b.code, 0);
  assert.equal(clusterBlock(b.stdout)["completed_requests"], 12);
  assert.ok(!b.stdout.includes("Rejected Requests"));
});

test("precedence: bundle token_bucket_capacity 0 passes the bundle check but fails the CLI check", async () => {
  const f = bundle("admission:\n  policy: token-bucket\n  token_bucket_capacity: 0\n");
  const a = await runCli("--policy-config", f);
  assert.equal(a.code, 1);
  assert.deepEqual(a.stderr, ["error: --token-bucket-capacity must be a finite value > 0, got 0"]);
  const b = await runCli("--policy-config", f, "--token-bucket-capacity", "10000");
  assert.equal(b.code, 0, b.stderr.join("\n"));
  // A present 0 counts as set: it replaces the default refill rate too.
  const g = bundle("admission:\n  policy: token-bucket\n  token_bucket_refill_rate: 0\n");
  const c = await runCli("--policy-config", g);
  assert.deepEqual(c.stderr, ["error: --token-bucket-refill-rate must be a finite value > 0, got 0"]);
});

test("precedence: bundle scorers only with weighted routing and an empty --routing-scorers", async () => {
  const scorersLine = (stderr: string[]) => stderr.find((l) => l.includes("Weighted routing scorers"));
  const f = bundle(
    "routing:\n  policy: weighted\n  scorers:\n    - {name: queue-depth, weight: 1}\n    - {name: load-balance, weight: 2.5}\n",
  );
  const a = await runCli("--policy-config", f, "--log", "info");
  assert.equal(a.code, 0);
  assert.match(scorersLine(a.stderr) ?? "", /Weighted routing scorers: queue-depth:1\.0, load-balance:2\.5/);
  assert.ok(
    a.stderr.some((l) =>
      l.includes("Policy config: admission=always-admit, routing=weighted, priority=constant, scheduler=fcfs"),
    ),
    a.stderr.join("\n"),
  );
  const b = await runCli("--policy-config", f, "--log", "info", "--routing-scorers", "kv-utilization:2");
  assert.match(scorersLine(b.stderr) ?? "", /Weighted routing scorers: kv-utilization:2\.0"/);
  const c = await runCli("--policy-config", f, "--log", "info", "--routing-scorers", "");
  assert.equal(c.code, 1, "an explicit empty list is refused (leave the flag out to let bundle scorers apply)");
  assert.match(scorersLine(a.stderr) ?? "", /queue-depth:1\.0, load-balance:2\.5/);
  const d = await runCli("--policy-config", f, "--log", "info", "--routing-policy", "least-loaded");
  assert.equal(scorersLine(d.stderr), undefined);
  assert.ok(
    !d.stderr.some((l) => l.includes("no effect")),
    "bundle scorers under a non-weighted policy are ignored silently",
  );
  // Default list without bundle scorers.
  const e = await runCli("--log", "info", "--routing-policy", "weighted");
  assert.match(scorersLine(e.stderr) ?? "", /prefix-affinity:3\.0, queue-depth:2\.0, kv-utilization:2\.0/);
});

test("precedence: bundle policies reach the run (priority/scheduler) and CLI name validation runs after the bundle", async () => {
  const f = bundle("priority:\n  policy: slo-based\nscheduler: priority-fcfs\nrouting:\n  policy: least-loaded\n");
  const a = await runCli("--policy-config", f, "--log", "info", "--num-instances", "2");
  assert.equal(a.code, 0);
  assert.ok(
    a.stderr.some((l) =>
      l.includes(
        "Policy config: admission=always-admit, routing=least-loaded, priority=slo-based, scheduler=priority-fcfs",
      ),
    ),
  );
  const b = await runCli("--policy-config", f, "--scheduler", "lifo");
  assert.equal(b.code, 1);
  assert.deepEqual(b.stderr, ['error: Unknown scheduler "lifo". Valid: fcfs, priority-fcfs, reverse-priority, sjf']);
  const bad = bundle("bogus: 1\n");
  const c = await runCli("--policy-config", bad);
  assert.equal(c.code, 1);
  assert.equal(c.stderr.length, 1);
  assert.match(c.stderr[0]!, /^error: Failed to load policy config: parsing policy config: .*bogus.*line 1/);
});

// --- --routing-scorers ---

test("--routing-scorers parses name:weight lists with whitespace; empty → no configuration", () => {
  assert.equal(parseRoutingScorers(""), null);
  assert.deepEqual(parseRoutingScorers(" queue-depth : 2 ,kv-utilization:0.5"), [
    { name: "queue-depth", weight: 2 },
    { name: "kv-utilization", weight: 0.5 },
  ]);
  assert.deepEqual(parseRoutingScorers("slo-priority:1e2"), [{ name: "slo-priority", weight: 100 }]);
});

test("--routing-scorers errors, first failing check per entry", () => {
  const err = (s: string) => {
    try {
      parseRoutingScorers(s);
    } catch (e) {
      return (e as Error).message;
    }
    return "accepted";
  };
  assert.equal(
    err("queue-depth"),
    'Invalid --routing-scorers: invalid scorer config "queue-depth" (expected name:weight)',
  );
  assert.equal(err("queue-depth:1,"), 'Invalid --routing-scorers: invalid scorer config "" (expected name:weight)');
  assert.equal(err("bogus:1"), `Invalid --routing-scorers: unknown scorer "bogus"; valid: ${VALID_SCORERS}`);
  assert.equal(
    err("bogus:x"),
    `Invalid --routing-scorers: unknown scorer "bogus"; valid: ${VALID_SCORERS}`,
    "name checked before weight",
  );
  assert.equal(
    err("queue-depth:1,queue-depth:x"),
    'Invalid --routing-scorers: duplicate scorer "queue-depth"; each scorer may appear at most once',
  );
  assert.match(err("queue-depth:abc"), /^Invalid --routing-scorers: invalid weight for scorer "queue-depth": /);
  assert.match(err("queue-depth:"), /^Invalid --routing-scorers: invalid weight for scorer "queue-depth": /);
  for (const w of ["0", "-1", "Inf", "+inf", "NaN", "-0"]) {
    assert.equal(
      err(`queue-depth:${w}`),
      `Invalid --routing-scorers: scorer "queue-depth" weight must be a finite positive number, got ${w}`,
    );
  }
  assert.match(err("kv-utilization:1,queue-depth"), /invalid scorer config "queue-depth"/);
});

test("--routing-scorers through the CLI: fatal with weighted routing, ignored with a warning otherwise", async () => {
  const a = await runCli("--routing-policy", "weighted", "--routing-scorers", "queue-depth:1,");
  assert.equal(a.code, 1);
  assert.deepEqual(a.stderr, ['error: Invalid --routing-scorers: invalid scorer config "" (expected name:weight)']);
  assert.equal(a.stdout, "");
  const run = await runCli("--routing-scorers", "garbage");
  const b = { ...run, stderr: withoutLatencyNote(run.stderr) };
  assert.equal(b.code, 0, "not even parsed under round-robin");
  assert.equal(b.stderr.length, 1);
  assert.ok(
    b.stderr[0]!.includes("--routing-scorers has no effect when routing policy is") &&
      b.stderr[0]!.includes("round-robin"),
    b.stderr[0],
  );
  assert.ok(b.stderr[0]!.includes("(only applies to 'weighted')"));
  assert.ok(b.stderr[0]!.startsWith("level=warn"));
  const c = await runCli("--routing-policy", "least-loaded", "--routing-scorers", "queue-depth:1");
  assert.ok(c.stderr[0]!.includes("least-loaded"));
});

test("bundle extension keys: non-finite numbers reach validation; integer maps must hold integers", async () => {
  const a = await runCli("--policy-config", bundle("priority:\n  age_weight: .nan\n"));
  assert.deepEqual([a.code, a.stderr], [1, ["error: --slo-age-weight must be a finite value >= 0, got NaN"]]);
  const b = await runCli("--policy-config", bundle("admission:\n  load_threshold: .inf\n"));
  assert.equal(b.code, 1);
  assert.match(
    b.stderr.join("\n"),
    /^error: --admission-load-threshold must be a finite value >= 0, got (\+Inf|Infinity)$/,
  );
  assert.match(
    bundleError("priority:\n  urgency_thresholds_us: {critical: 1.5}\n"),
    /^Failed to load policy config: parsing policy config: .*urgency_thresholds_us/,
  );
  // An explicit flag wins over the bundle value.
  const c = await runCli("--policy-config", bundle("priority:\n  age_weight: .nan\n"), "--slo-age-weight", "0.00001");
  assert.equal(c.code, 0, c.stderr.join("\n"));
});
