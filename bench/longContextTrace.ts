// The long-context trace of the bench (README "Performance"): Mooncake-style JSONL with prompts of
// about 12,000 tokens (24 hash blocks of 512), outputs of about 350, Poisson arrivals at 3.4
// requests per second, and a third of the hash blocks shared: each prompt opens with one of 40
// 8-block documents, the rest is its own.
import fs from "node:fs";
import { Rng } from "../src/engine/rng.js";

const BLOCK = 512;
const DOCUMENTS = 40;
const SHARED_BLOCKS = 8;
const RATE_PER_MS = 3.4 / 1000;

/** Writes n lines to `file` (streamed in chunks: a million lines are about 200 MB). */
export function writeLongContextTrace(file: string, n: number, seed = 7n): void {
  const rng = new Rng(seed);
  const fd = fs.openSync(file, "w");
  let t = 0;
  let own = DOCUMENTS * SHARED_BLOCKS;
  let chunk: string[] = [];
  for (let i = 0; i < n; i++) {
    t += -Math.log(1 - rng.float64()) / RATE_PER_MS;
    const input = 11000 + rng.intn(2001);
    const output = 250 + rng.intn(201);
    const blocks = Math.ceil(input / BLOCK);
    const doc = rng.intn(DOCUMENTS);
    const ids: number[] = [];
    for (let j = 0; j < SHARED_BLOCKS; j++) ids.push(doc * SHARED_BLOCKS + j);
    for (let j = SHARED_BLOCKS; j < blocks; j++) ids.push(own++);
    chunk.push(
      `{"timestamp":${t.toFixed(3)},"input_length":${input},"output_length":${output},"hash_ids":[${ids.join(",")}]}`,
    );
    if (chunk.length === 10000) {
      fs.writeSync(fd, chunk.join("\n") + "\n");
      chunk = [];
    }
  }
  if (chunk.length > 0) fs.writeSync(fd, chunk.join("\n") + "\n");
  fs.closeSync(fd);
}

/** The workload spec replaying `trace` open loop. */
export function longContextSpec(trace: string): string {
  return `version: "2"\nseed: 42\nmooncake_trace:\n  path: ${JSON.stringify(trace)}\n  block_size: ${BLOCK}\n`;
}
