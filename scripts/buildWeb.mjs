// Build step: the browser playground (web/) as a static site in dist-web/ that works from any
// static host and from file://: index.html, playground.css, chart.js (Chart.js's UMD build),
// playground.js (the page), worker.js (the simulator, as source text the page starts as a Blob
// worker: file:// pages cannot start workers from files) and data.js (the bundled data files,
// mounted in the worker's in-memory file system). Needs `npm run build` first (dist/).
/* global Buffer */
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const out = path.join(root, "dist-web");
const web = path.join(root, "web");
/** The package root inside the worker's file system (src/util/paths.ts derives it from import.meta.url). */
const VROOT = "/blis";

/** data/ files the simulator reads (calibration data is for `blis calibrate`), their JSON caches, the package name. */
function dataFiles() {
  const files = {};
  const add = (rel, text) => {
    const st = fs.statSync(path.join(root, rel));
    files[`${VROOT}/${rel}`] = { text: text ?? fs.readFileSync(path.join(root, rel), "utf8"), mtimeMs: st.mtimeMs };
  };
  const walk = (rel) => {
    for (const e of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
      const p = `${rel}/${e.name}`;
      if (e.isDirectory()) {
        if (p !== "data/calibration") walk(p);
      } else if (/\.(ya?ml|json)$/.test(e.name)) add(p);
    }
  };
  walk("data");
  // The build-time JSON copies of bundled YAML (scripts/buildDataCache.mjs): no YAML parsing in the page either.
  walk("dist/data");
  const pkg = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"));
  add("package.json", JSON.stringify({ name: pkg.name, version: pkg.version }));
  return files;
}

const shims = (name) => path.join(web, "shims", `${name}.ts`);

async function bundle(entry, extra = {}) {
  const r = await build({
    entryPoints: [path.join(web, entry)],
    bundle: true,
    format: "iife",
    platform: "browser",
    target: "es2022",
    minify: true,
    legalComments: "none",
    write: false,
    logLevel: "warning",
    ...extra,
  });
  return r.outputFiles[0].text;
}

const workerCode = await bundle("worker/main.ts", {
  alias: {
    "node:fs": shims("fs"),
    "node:path": shims("path"),
    "node:url": shims("url"),
    "node:module": shims("module"),
    "node:v8": shims("v8"),
    commander: shims("commander"),
  },
  inject: [shims("globals")],
  define: { "import.meta.url": JSON.stringify(`file://${VROOT}/dist/src/util/paths.js`) },
});
const pageCode = await bundle("page/main.ts");
const require = createRequire(import.meta.url);
// The package exports only its module builds: walk up from its entry to its folder (as src/report/html.ts does).
let chartDir = path.dirname(require.resolve("chart.js"));
while (!fs.existsSync(path.join(chartDir, "package.json"))) chartDir = path.dirname(chartDir);
const chartCode = fs
  .readFileSync(path.join(chartDir, "dist", "chart.umd.min.js"), "utf8")
  .replace(/\n?\/\/# sourceMappingURL=\S*\s*$/, "\n");
const { REPORT_CSS } = await import(pathToFileURL(path.join(root, "dist", "src", "report", "css.js")).href);
const { version } = JSON.parse(fs.readFileSync(path.join(chartDir, "package.json"), "utf8"));

const assets = {
  "index.html": fs.readFileSync(path.join(web, "index.html"), "utf8").replace("{{CHART_VERSION}}", version),
  "playground.css": REPORT_CSS + fs.readFileSync(path.join(web, "playground.css"), "utf8"),
  "chart.js": chartCode,
  "playground.js": pageCode,
  "worker.js": `globalThis.blisWorkerSource=${JSON.stringify(workerCode)};\n`,
  "data.js": `globalThis.blisData=${JSON.stringify(dataFiles())};\n`,
};
fs.rmSync(out, { recursive: true, force: true });
fs.mkdirSync(out, { recursive: true });
let code = 0;
let codeGz = 0;
for (const [name, text] of Object.entries(assets)) {
  fs.writeFileSync(path.join(out, name), text);
  if (name === "data.js") continue;
  code += Buffer.byteLength(text);
  codeGz += zlib.gzipSync(text, { level: 9 }).length;
}
const dataGz = zlib.gzipSync(assets["data.js"], { level: 9 }).length;
const kb = (n) => `${(n / 1024).toFixed(0)} KiB`;
console.error(
  `playground: ${path.relative(root, out)}/ code ${kb(code)} (${kb(codeGz)} gzipped), data ${kb(dataGz)} gzipped`,
);
