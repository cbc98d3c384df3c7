// Build step: converts bundled YAML data into JSON under dist/data/ so runs with the bundled files
// skip YAML parsing: data/defaults.yaml (about 150 ms) and data/head/trained-physics.yaml (about
// 20 ms, mostly the YAML parser's first use). The YAML stays the source of truth: each cache
// records its YAML's size and modification time and is ignored when they differ.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseDocument } from "yaml";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** Writes dist/data/<rel>.json from data/<rel>.yaml, parsed as its loader parses it. */
function cache(rel, uniqueKeys) {
  const src = path.join(root, "data", `${rel}.yaml`);
  const out = path.join(root, "dist", "data", `${rel}.json`);
  const st = fs.statSync(src);
  const doc = parseDocument(fs.readFileSync(src, "utf8"), { uniqueKeys });
  if (doc.errors.length > 0) throw new Error(`${src}: ${doc.errors[0].message}`);
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, JSON.stringify({ source: { size: st.size, mtimeMs: st.mtimeMs }, data: doc.toJS() }));
}

cache("defaults", false);
cache(path.join("head", "trained-physics"), true);
