// Parsing of SLOs, layouts, schedules and fleets; judging seeds; deploy files of a split winner.

import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import fc from "fast-check";
import { parseAllDocuments } from "yaml";
import type { CandidateRow } from "../../src/plan/candidateRows.js";
import { kubernetesManifest, vllmCommands } from "../../src/plan/deploy.js";
import { loadSchedule } from "../../src/plan/schedule.js";
import { parsePdList } from "../../src/plan/shapes.js";
import { goodputTargets, judgedValue, parseSlos } from "../../src/plan/slo.js";
import { UserError } from "../../src/util/errors.js";

test("--slo: latency keys at percentiles and a goodput floor", () => {
  const s = parseSlos("ttft_p99_ms=300, itl_p95_ms=40,e2e_mean_ms=9000,goodput=0.9");
  assert.deepEqual(
    s.map((x) => [x.key, x.metric, x.limit]),
    [
      ["ttft_p99_ms", "ttft_p99", 300],
      ["itl_p95_ms", "itl_p95", 40],
      ["e2e_mean_ms", "e2e_mean", 9000],
      ["goodput", "slo_attainment", 0.9],
    ],
  );
  assert.deepEqual(goodputTargets(s), { sloTtft: "default=300ms", sloItl: "default=40ms", sloE2e: "default=9000ms" });
  assert.throws(() => parseSlos("goodput=0.9"), /goodput needs at least one latency target/);
  assert.throws(() => parseSlos("ttft_p99_ms=-1"), UserError);
  assert.throws(() => parseSlos("ttft_p99_ms=1,ttft_p99_ms=2"), /given twice/);
});

test("judged value: the worst seed, or the nearest-rank quantile from best to worst", () => {
  const [lat, good] = parseSlos("ttft_p99_ms=100,goodput=0.5");
  fc.assert(
    fc.property(fc.array(fc.double({ min: 0, max: 1000, noNaN: true }), { minLength: 1, maxLength: 9 }), (xs) => {
      assert.equal(judgedValue(lat!, xs, { kind: "all" }), Math.max(...xs));
      assert.equal(judgedValue(good!, xs, { kind: "all" }), Math.min(...xs));
      const median = judgedValue(lat!, xs, { kind: "quantile", q: 0.5 })!;
      assert.ok(median <= Math.max(...xs) && median >= Math.min(...xs));
    }),
  );
  assert.equal(judgedValue(lat!, [1, null], { kind: "all" }), null);
});

test("--pd: none and PREFILL:DECODE splits", () => {
  assert.deepEqual(parsePdList("none,1:3,2:2"), [
    { kind: "none" },
    { kind: "split", prefill: 1, decode: 3 },
    { kind: "split", prefill: 2, decode: 2 },
  ]);
  assert.throws(() => parsePdList("none,none"), /listed twice/);
  assert.throws(() => parsePdList("1-3"), UserError);
});

test("--rate-schedule: HH:MM,RATE lines from midnight, times increasing, errors at FILE:LINE", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "blis-plan-sched-"));
  const f = path.join(dir, "day.csv");
  fs.writeFileSync(f, "time,rate\n00:00,10\n08:30,40\n# evening\n18:00,25\n");
  const s = loadSchedule(f);
  assert.deepEqual(s.starts, [0, 510, 1080]);
  assert.equal(s.peak, 40);
  fs.writeFileSync(f, "00:00,10\n08:30,40\n07:00,5\n");
  assert.throws(
    () => loadSchedule(f),
    new RegExp(`${f.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:3: times must increase`),
  );
  fs.writeFileSync(f, "01:00,10\n");
  assert.throws(() => loadSchedule(f), /:1: the first interval must start at 00:00/);
});

function row(pd: string, extra: Partial<CandidateRow>): CandidateRow {
  return {
    id: "x",
    gpu: "H100",
    tp: 2,
    pd,
    max_num_seqs: 128,
    max_num_batched_tokens: 4096,
    status: "found",
    reason: "",
    lower_bound: null,
    copies: 2,
    replicas: 8,
    prefill_replicas: null,
    decode_replicas: null,
    gpus: 16,
    cost_per_hour: 1,
    usd_per_m_output_tokens: 1,
    tokens_per_sec_per_gpu: 1,
    tokens_per_sec_per_user: 1,
    slos: [],
    path: [],
    ...extra,
  };
}

test("deploy: a split winner has prefill and decode pools, in vllm serve lines and a manifest that parses", () => {
  const d = {
    hfRepo: "meta-llama/Llama-3.1-70B-Instruct",
    row: row("1:3", { prefill_replicas: 2, decode_replicas: 6 }),
    gpuMemoryUtilization: 0.9,
    blockSize: 16,
    maxModelLen: 0,
  };
  const text = kubernetesManifest(d);
  const docs = parseAllDocuments(text);
  const list = (Array.isArray(docs) ? docs : [docs]).map(
    (x) =>
      x.toJS() as {
        metadata: { labels: { role: string } };
        spec: {
          replicas: number;
          template: { spec: { containers: { command: string[]; resources: { limits: Record<string, number> } }[] } };
        };
      },
  );
  assert.deepEqual(
    list.map((x) => [x.metadata.labels.role, x.spec.replicas]),
    [
      ["prefill", 2],
      ["decode", 6],
    ],
  );
  const c = list[0]!.spec.template.spec.containers[0]!;
  assert.equal(c.resources.limits["nvidia.com/gpu"], 2);
  assert.deepEqual(c.command.slice(0, 5), [
    "vllm",
    "serve",
    "meta-llama/Llama-3.1-70B-Instruct",
    "--tensor-parallel-size",
    "2",
  ]);
  const lines = vllmCommands(d);
  assert.match(lines, /# prefill: 2 replica\(s\)/);
  assert.match(lines, /--kv-transfer-config '\{"kv_connector":"NixlConnector","kv_role":"kv_consumer"\}'/);
  assert.match(lines, /--max-num-seqs 128 --max-num-batched-tokens 4096/);
});
