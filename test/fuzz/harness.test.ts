// The fuzz harness itself: the oracle rejects each kind of bad outcome, the stdout checks reject
// malformed output, and the runner turns an overrunning case into a hang and recovers.

import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { printable, type FuzzCase } from "./case.js";
import { checkOutcome, snapshot } from "./oracle.js";
import { namesBadItem } from "./oracleParts.js";
import { CaseRunner, type Outcome } from "./runner.js";
import { runStdoutProblem, sweepStdoutProblem } from "./stdoutFormats.js";
import { QUIET_MODEL } from "../helpers/quietModel.js";

const RUN = ["run", ...QUIET_MODEL, "--rate", "50"];
const fuzzCase = (argv: string[]): FuzzCase => printable({ family: "run", argv, files: [], dirs: [], keys: [] });
const exit = (code: number, stdout: string, stderr: string[], escaped: string[] = []): Outcome => ({
  kind: "exit",
  code,
  stdout,
  stderr,
  escaped,
  ms: 1,
});

function block(id: string): string {
  const keys = [
    "completed_requests",
    "still_queued",
    "still_running",
    "injected_requests",
    "total_input_tokens",
    "total_output_tokens",
    "preemption_count",
    "dropped_unservable",
  ];
  const values = [
    "vllm_estimated_duration_s",
    "responses_per_sec",
    "tokens_per_sec",
    "e2e_mean_ms",
    "e2e_p90_ms",
    "e2e_p95_ms",
    "e2e_p99_ms",
    "ttft_mean_ms",
    "ttft_p90_ms",
    "ttft_p95_ms",
    "ttft_p99_ms",
    "itl_mean_ms",
    "itl_p90_ms",
    "itl_p95_ms",
    "itl_p99_ms",
    "scheduling_delay_p99_ms",
  ];
  const b = Object.fromEntries([["instance_id", id], ...keys.map((k) => [k, 1]), ...values.map((k) => [k, 0.5])]);
  return `=== Simulation Metrics ===\n${JSON.stringify(b, null, 2)}\n`;
}

test("the run stdout check accepts the documented layout and rejects the rest", () => {
  const none = { fitness: false, fairness: false, traceSummary: false };
  assert.equal(runStdoutProblem(block("cluster"), none), null);
  assert.equal(
    runStdoutProblem(block("instance_0") + block("cluster") + "=== Fairness ===\nJain Index (tenants): 1.0000\n", {
      ...none,
      fairness: true,
    }),
    null,
  );
  assert.match(runStdoutProblem("", none)!, /no metrics block/);
  assert.match(runStdoutProblem("=== Anomaly Counters ===\nRejected Requests: 3\n", none)!, /no metrics block/);
  assert.match(runStdoutProblem(block("instance_0"), none)!, /cluster/);
  assert.match(
    runStdoutProblem(block("cluster").replace('"still_queued": 1', '"still_queued": -1'), none)!,
    /still_queued/,
  );
  assert.match(runStdoutProblem(block("cluster") + "=== KV Cache Metrics ===\nCache Hit Rate: NaN\n", none)!, /NaN/);
  assert.match(runStdoutProblem(block("cluster"), { ...none, fitness: true })!, /fitness/);
  assert.equal(sweepStdoutProblem("# summary\na,b\n1,2\n", "csv"), null);
  assert.match(sweepStdoutProblem("# summary\na,b\n1,2,3\n", "csv")!, /fields/);
  assert.match(sweepStdoutProblem("{", "json")!, /not JSON/);
});

test("the oracle rejects every kind of bad outcome", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "blis-oracle-"));
  const run = { argv: [...RUN, "--rate", "-1"], dir, before: snapshot(dir), after: snapshot(dir) };
  const c = fuzzCase(run.argv);
  const kind = (o: Outcome, r = run): string | undefined => checkOutcome(c, o, r)?.kind;
  assert.equal(kind(exit(1, "", ["level=warn msg=x", "error: --rate must be a finite value > 0, got -1"])), undefined);
  assert.equal(kind(exit(0, block("cluster"), ["level=warn msg=x"])), undefined);
  assert.equal(kind({ kind: "timeout", ms: 5000 }), "hang");
  assert.equal(kind({ kind: "crash", message: "worker exited" }), "crash");
  assert.equal(kind(exit(2, "", ["panic: x"])), "exception text on stderr/stdout");
  const c22 =
    "panic: NewInstanceSimulator(instance_0): NewLatencyModel: latency model: AlphaCoeffs requires at least 3 elements, got 2";
  assert.equal(kind(exit(2, "", [c22])), undefined);
  assert.equal(kind(exit(2, block("cluster"), [c22])), "stdout written before failing");
  assert.equal(kind(exit(2, "", [c22, "error: --rate bad"])), "exit status 2");
  assert.equal(kind(exit(2, "", ["error: x"])), "exit status 2");
  assert.equal(kind(exit(1, "", ["internal error: y"])), "exception text on stderr/stdout");
  assert.equal(kind(exit(1, "", ["error: --rate bad"], ["unhandled rejection: Error: z"])), "escaped exception");
  assert.equal(kind(exit(1, "", ["error: --rate bad", "error: again"])), "exit 1 without exactly one error line");
  assert.equal(kind(exit(1, block("cluster"), ["error: --rate bad"])), "stdout written before failing");
  assert.equal(kind(exit(1, "", ["error: something is wrong"])), "error line names no flag, key, file or line");
  fs.writeFileSync(path.join(dir, "results.json"), "{");
  assert.equal(
    kind(exit(1, "", ["error: --rate bad"]), { ...run, after: snapshot(dir) }),
    "files written before failing",
  );
  fs.rmSync(dir, { recursive: true, force: true });
});

test("an error line names the bad item when it quotes an argument, escaped or empty", () => {
  const argv = ["run", "--model", "m", '"', ""];
  const c = fuzzCase(argv);
  assert.ok(namesBadItem('error: unexpected argument "\\"": blis run takes no arguments', c, argv, "/tmp"));
  assert.ok(namesBadItem('error: unexpected empty argument "": blis run takes no arguments', c, argv, "/tmp"));
  assert.ok(!namesBadItem('error: unexpected argument "x": blis run takes no arguments', c, argv, "/tmp"));
});

test("the runner reports an overrunning case as a hang and runs the next case in a new worker", async () => {
  const runner = new CaseRunner(2000);
  try {
    const long = await runner.run([...RUN, "--num-requests", "1000000", "--total-kv-blocks", "100000"]);
    assert.equal(long.kind, "timeout");
    const quick = await runner.run([...RUN, "--rate", "-1"]);
    assert.ok(quick.kind === "exit" && quick.code === 1, JSON.stringify(quick));
  } finally {
    await runner.close();
  }
});
