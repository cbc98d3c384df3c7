// Reading Mooncake-style JSONL (docs/traces.md "Mooncake traces"): spellings, malformed lines and
// the hash-id count a trace block size implies.
import { test } from "node:test";
import assert from "node:assert/strict";
import { parseMooncake } from "../../../src/workload/mooncake/parse.js";
import { loadMooncakeTrace } from "../../../src/workload/mooncake/workload.js";
import { UserError } from "../../../src/util/errors.js";
import { traceFile } from "./helpers.js";

test("both spellings of every field, blank lines skipped, sessions and turns kept", () => {
  const text = [
    '{"timestamp": 0, "input_length": 600, "output_length": 7, "hash_ids": [4, 5]}',
    "",
    '{"created_time": 12.5, "input_tokens": 100, "output_tokens": 3, "session_id": 17, "turn": 2}',
  ].join("\n");
  const t = parseMooncake(text, "t.jsonl", 512);
  assert.equal(t.count, 2);
  assert.deepEqual([...t.timestampMs], [0, 12.5]);
  assert.deepEqual([...t.inputLen], [600, 100]);
  assert.deepEqual([...t.outputLen], [7, 3]);
  assert.deepEqual([...t.ids], [4, 5]);
  assert.deepEqual([...t.idStart], [0, 2, 2]);
  assert.deepEqual([...t.line], [1, 3]);
  assert.deepEqual(t.session, ["", "17"]);
  assert.deepEqual([...t.turn!], [0, 2]);
});

test("every malformed line is reported as FILE:LINE: what is wrong", () => {
  const text = [
    '{"timestamp": 0, "input_length": 10, "output_length": 1}',
    "{not json",
    '{"input_length": 10, "output_length": 1}',
    '{"timestamp": 1, "input_length": -3, "output_length": 1}',
    '{"timestamp": 1, "input_length": 10, "input_tokens": 10, "output_length": 1}',
    '{"timestamp": 1, "input_length": 10, "output_length": 1, "hash_ids": [1, "x"]}',
    "[1, 2]",
    '{"timestamp": 1, "input_length": 10, "output_length": 1.5}',
    '{"timestamp": 1, "input_length": 10, "output_length": 1, "turn": -1}',
  ].join("\n");
  assert.throws(
    () => parseMooncake(text, "bad.jsonl", 512),
    (e: unknown) => {
      assert.ok(e instanceof UserError);
      const lines = e.message.split("\n");
      assert.deepEqual(
        lines.map((l) => l.split(": ")[0]),
        [
          "bad.jsonl:2",
          "bad.jsonl:3",
          "bad.jsonl:4",
          "bad.jsonl:5",
          "bad.jsonl:6",
          "bad.jsonl:7",
          "bad.jsonl:8",
          "bad.jsonl:9",
        ],
      );
      assert.match(lines[0]!, /not valid JSON/);
      assert.match(lines[1]!, /missing timestamp or created_time/);
      assert.match(lines[2]!, /input_length must be a non-negative integer, got -3/);
      assert.match(lines[3]!, /both input_length and input_tokens given/);
      assert.match(lines[4]!, /hash_ids: "x" is not a non-negative integer/);
      assert.match(lines[5]!, /not a JSON object/);
      assert.match(lines[6]!, /output_length must be a non-negative integer, got 1.5/);
      assert.match(lines[7]!, /turn must be a non-negative integer/);
      return true;
    },
  );
});

test("many malformed lines: the first 20 listed, the rest counted", () => {
  const text = Array.from({ length: 25 }, () => "{}").join("\n");
  assert.throws(
    () => parseMooncake(text, "f", 512),
    (e: unknown) => {
      const lines = (e as Error).message.split("\n");
      assert.equal(lines.length, 21);
      assert.equal(lines[20], "f: 5 more malformed lines");
      return true;
    },
  );
});

test("the hash-id count must match the input length at the trace block size", () => {
  const line = '{"timestamp": 0, "input_length": 1100, "output_length": 1, "hash_ids": [1, 2, 3]}';
  assert.equal(parseMooncake(line, "f", 512).count, 1); // ceil(1100 / 512) = 3
  assert.throws(
    () => parseMooncake(line, "f", 256),
    /f:1: 3 hash_ids for 1100 input tokens; at trace block size 256 they need 5/,
  );
  assert.equal(parseMooncake(line, "f", 367).count, 1); // ceil(1100 / 367) = 3
  assert.throws(() => parseMooncake(line, "f", 1100), /they need 1/);
});

test("a file without requests, and a missing file, are errors", () => {
  assert.throws(() => parseMooncake("\n  \n", "empty.jsonl", 512), /empty\.jsonl: no requests/);
  assert.throws(
    () => loadMooncakeTrace("/nonexistent/t.jsonl"),
    /reading mooncake trace: open \/nonexistent\/t\.jsonl: no such file or directory/,
  );
  const f = traceFile(['{"timestamp": 0, "input_length": 10, "output_length": 1}']);
  assert.equal(loadMooncakeTrace(f).blockSize, 512);
  assert.equal(loadMooncakeTrace(f, 64).blockSize, 64);
});
