// Writes the example Mooncake-style traces of this folder (docs/traces.md "Examples"):
//   node examples/traces/generate.mjs [DIR]   (DIR: where to write; default this folder)
// Deterministic: the same files on every run. agentic.jsonl holds sessions whose context grows
// turn by turn behind one shared system prompt, with bursts of tool calls between turns.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const BLOCK = 512;

/** A small seeded generator (xorshift32 with a multiply on output); uniform in [0, 1). */
function random(seed) {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return (Math.imul(s, 0x9e3779b1) >>> 0) / 4294967296;
  };
}

/**
 * A conversation's context as hash blocks: full blocks keep their ids when the context grows;
 * the partial last block gets a new id whenever tokens are appended to it (its content changes).
 */
class Context {
  constructor(ids, tokens, next) {
    this.ids = ids;
    this.tokens = tokens;
    this.next = next;
  }
  /** Appends n tokens; returns the ids of the whole context. */
  append(n) {
    const full = Math.floor(this.tokens / BLOCK);
    this.tokens += n;
    const want = Math.ceil(this.tokens / BLOCK);
    this.ids.length = full;
    while (this.ids.length < want) this.ids.push(this.next());
    return [...this.ids];
  }
}

function agentic() {
  const rnd = random(20261128);
  const between = (a, b) => a + Math.floor(rnd() * (b - a + 1));
  let nextId = 1000;
  const newId = () => nextId++;
  // The system prompt every session starts with: 6 full blocks (3,072 tokens), ids 0-5.
  const system = [0, 1, 2, 3, 4, 5];
  const lines = [];
  let start = 0;
  for (let s = 0; s < 40; s++) {
    start += Math.round(-Math.log(1 - rnd()) * 4000); // a new session every 4 s on average
    const ctx = new Context([...system], system.length * BLOCK, newId);
    let t = start;
    let turn = 0;
    const turns = between(3, 8);
    for (let u = 0; u < turns; u++) {
      // The user's message, then the model's answer.
      const ids = ctx.append(between(80, 900));
      const output = between(60, 500);
      lines.push({
        timestamp: t,
        input_length: ctx.tokens,
        output_length: output,
        hash_ids: ids,
        session_id: `s${s}`,
        turn: turn++,
      });
      ctx.append(output);
      t += 2000 + output * 12;
      // Now and then a burst of tool calls: each result joins the context, requests 100-400 ms apart.
      if (rnd() < 0.5) {
        for (let k = between(2, 5); k > 0; k--) {
          const tool = ctx.append(between(40, 1500));
          const out = between(20, 120);
          lines.push({
            timestamp: t,
            input_length: ctx.tokens,
            output_length: out,
            hash_ids: tool,
            session_id: `s${s}`,
            turn: turn++,
          });
          ctx.append(out);
          t += between(100, 400) + out * 12;
        }
      }
      t += between(3000, 20000); // the user reads and types
    }
  }
  lines.sort((a, b) => a.timestamp - b.timestamp);
  return lines;
}

const out = path.join(process.argv[2] ?? here, "agentic.jsonl");
fs.writeFileSync(
  out,
  agentic()
    .map((l) => JSON.stringify(l))
    .join("\n") + "\n",
);
process.stdout.write(`wrote ${out}\n`);
