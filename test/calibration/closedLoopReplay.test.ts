// Closed-loop replay (docs/calibration.md "Closed-loop replay"): sessions send their later rounds
// when the previous one ends, with the recorded lengths; think time and context growth; errors.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { replay, type ReplayOptions } from "../../src/calibration/replay.js";
import { loadTraceV2 } from "../../src/workload/index.js";
import { parseThinkDist } from "../../src/workload/sessions/thinkTime.js";
import { Rng } from "../../src/engine/rng.js";
import { silentLogger } from "../../src/util/log.js";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "blis-clreplay-"));
process.on("exit", () => fs.rmSync(dir, { recursive: true, force: true }));
const COLUMNS =
  "request_id,client_id,tenant_id,slo_class,session_id,round_index,prefix_group,streaming,input_tokens,output_tokens,text_tokens,image_tokens,audio_tokens,video_tokens,reason_ratio,arrival_time_us,send_time_us,first_chunk_time_us,last_chunk_time_us,num_chunks,status,error_message";

/** rows: [id, session, round, input, output, arrival µs]. */
function trace(rows: [number, string, number, number, number, number][], growth = ""): ReturnType<typeof loadTraceV2> {
  const n = fs.readdirSync(dir).length;
  const header = path.join(dir, `h${n}.yaml`);
  const data = path.join(dir, `d${n}.csv`);
  fs.writeFileSync(
    header,
    `trace_version: 2\ntime_unit: microseconds\ncreated_at: "2026-01-01T00:00:00Z"\nmode: real\nwarm_up_requests: 0\nsession_context_growth: "${growth}"\n`,
  );
  const lines = rows.map(
    ([id, s, r, i, o, a]) => `${id},c,,,${s},${r},,false,${i},${o},${i},0,0,0,0,${a},${a},0,0,0,ok,`,
  );
  fs.writeFileSync(data, [COLUMNS, ...lines].join("\n") + "\n");
  return loadTraceV2(header, data);
}

const ROWS: [number, string, number, number, number, number][] = [
  [0, "a", 0, 200, 20, 0],
  [1, "b", 0, 300, 10, 1000],
  [2, "", 0, 100, 5, 2000],
  [3, "a", 1, 50, 30, 5_000_000],
  [4, "b", 1, 60, 10, 6_000_000],
  [5, "a", 2, 70, 5, 9_000_000],
];

const run = (t: ReturnType<typeof loadTraceV2>, extra: Partial<ReplayOptions> = {}, runExtra = {}) =>
  replay(t, { run: { model: "meta-llama/llama-3.1-8b-instruct", ...runExtra }, logger: silentLogger, ...extra });

test("closed loop: every recorded round is replayed, each after the previous one ends plus think time", async () => {
  const res = await run(trace(ROWS), { sessionMode: "closed-loop" }, { thinkTimeMs: 100 });
  assert.equal(res.requests.length, 6, "every row has its simulated request, follow-ups included");
  const l = res.sim.run.ledger;
  const at = (row: number): number => l.arrival[res.seqOfRow[row]!]!;
  assert.equal(at(0), 0);
  // A follow-up arrives 100 ms after its previous round's completion step, not at its recorded time.
  assert.ok(at(3) > at(0) + 100_000 && at(3) < 1_000_000, `round 1 of a at ${at(3)}`);
  assert.ok(at(5) > at(3) + 100_000 && at(5) < 2_000_000, `round 2 of a at ${at(5)}`);
  for (const k of [3, 4, 5]) assert.equal(l.inputLen[res.seqOfRow[k]!], ROWS[k]![3], "recorded lengths");
  assert.equal(res.sim.metrics.sessions?.sessions, 2);
  const fixed = await run(trace(ROWS));
  assert.equal(fixed.sim.run.ledger.arrival[fixed.seqOfRow[3]!], 5_000_000, "fixed mode keeps recorded times");
});

test("without think flags the recorded arrival gap is the think time; accumulate grows the context", async () => {
  const res = await run(trace(ROWS, "accumulate"), { sessionMode: "closed-loop" });
  const l = res.sim.run.ledger;
  const at = (row: number): number => l.arrival[res.seqOfRow[row]!]!;
  assert.ok(at(3) > 5_000_000, "gap 5 s after round 0's completion");
  // Compat: a completed round adds one token less than its output (docs/behavior.md "Closed-loop load").
  assert.equal(l.inputLen[res.seqOfRow[3]!], 200 + 19 + 50);
  assert.equal(l.inputLen[res.seqOfRow[5]!], 200 + 19 + 50 + 29 + 70);
});

test("closed-loop replay errors", async () => {
  await assert.rejects(
    run(
      trace([
        [0, "a", 0, 10, 5, 0],
        [1, "a", 2, 10, 5, 10],
      ]),
      { sessionMode: "closed-loop" },
    ),
    {
      message: 'session "a" has non-consecutive round indices (expected 1, got 2)',
    },
  );
  await assert.rejects(run(trace(ROWS, "grow"), { sessionMode: "closed-loop" }), {
    message: 'session_context_growth: unknown value "grow" (valid: "accumulate" or empty)',
  });
  await assert.rejects(run(trace(ROWS), {}, { thinkTimeMs: 5 }), {
    message: "--think-time-ms applies only with --session-mode closed-loop",
  });
  await assert.rejects(
    run(trace(ROWS), { sessionMode: "closed-loop", thinkDist: "constant:value=5" }, { thinkTimeMs: 5 }),
    {
      message: "--think-time-ms and --think-time-dist are mutually exclusive",
    },
  );
  await assert.rejects(run(trace(ROWS), { sessionMode: "closed-loop" }, { timeout: 0 }), {
    message: "--timeout must be positive (seconds) or negative to disable; got 0",
  });
});

test("--think-time-dist values and errors", () => {
  const rng = new Rng(1n);
  assert.equal(parseThinkDist("constant:value=2s").sample(rng), 2_000_000);
  assert.equal(parseThinkDist("constant:value=250").sample(rng), 250_000, "bare numbers are ms");
  assert.equal(parseThinkDist("constant:value=800us").sample(rng), 800);
  const ln = parseThinkDist("lognormal:mu=0,sigma=0.5,min=100ms,max=3s");
  for (let i = 0; i < 200; i++) {
    const v = ln.sample(rng);
    assert.ok(v >= 100_000 && v <= 3_000_000);
  }
  assert.throws(() => parseThinkDist("lognormal:mu=0,sigma=0"), {
    message: "--think-time-dist: sigma must be > 0, got 0",
  });
  assert.throws(() => parseThinkDist("constant:value=1,value=2"), {
    message: '--think-time-dist: duplicate key "value"',
  });
  assert.throws(() => parseThinkDist("gamma:k=1"), {
    message: '--think-time-dist: unknown distribution "gamma" (valid: lognormal, constant)',
  });
  assert.throws(() => parseThinkDist("constant:value=-1"), /value must be a duration >= 0/);
});
