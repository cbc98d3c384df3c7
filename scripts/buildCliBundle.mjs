// Build step: bundles the compiled command line (dist/src/cli/main.js and everything it imports,
// packages included) in two forms that bin.js chooses from:
// - dist/src/cli/main.bundle.cjs, one CommonJS file, with the V8 code cache of a short run saved
//   beside it (main.bundle.cjs.cache): Node 20 has no code cache for ES modules, and reading the
//   bytecode instead of parsing and compiling the command line saves about a third of a run's
//   start-up. Used where Node can require() the ES-module-only packages some commands load.
// - dist/src/cli/main.bundle.js, an ES module, which loads one file instead of about 330 separate
//   modules; what commands import on demand goes to chunk files beside it (*.chunk.js).
// Modules that locate files beside themselves keep doing so: each module's import.meta.url becomes
// its own compiled file's URL, computed from the bundle's location. Packages that start workers
// from their own files stay outside the bundles.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const cliDir = path.join(root, "dist", "src", "cli");

for (const f of fs.readdirSync(cliDir)) if (f.endsWith(".chunk.js")) fs.rmSync(path.join(cliDir, f));

/** import() of a module named at run time (a plugin); esbuild bundles the others. */
const RUNTIME_IMPORT = /\bawait import\((?!["'`])/;

/**
 * Rewrites import.meta.url in each bundled file to that file's own URL, relative to `base` (the
 * bundle's URL); with `importFn`, run-time import() calls become calls of that function.
 */
function ownUrls(base, importFn) {
  return {
    name: "own-import-meta-url",
    setup(b) {
      b.onLoad({ filter: /\.(js|mjs)$/ }, (args) => {
        let text = fs.readFileSync(args.path, "utf8");
        const urls = text.includes("import.meta.url");
        const imports = importFn !== undefined && RUNTIME_IMPORT.test(text);
        if (!urls && !imports) return undefined;
        const rel = path.relative(cliDir, args.path).split(path.sep).join("/");
        if (urls) text = text.replaceAll("import.meta.url", `new URL(${JSON.stringify(rel)}, ${base}).href`);
        if (imports) text = text.replace(new RegExp(RUNTIME_IMPORT.source, "g"), `await ${importFn}(`);
        return { contents: text, loader: "js" };
      });
    },
  };
}

/**
 * ES-module-only packages outside the CommonJS bundle, which that bundle require()s: what
 * `import X from "pkg"` means is their default export, where esbuild's CommonJS interop would
 * hand over the whole module namespace.
 */
const esmDefaults = {
  name: "esm-only-default-export",
  setup(b) {
    b.onResolve({ filter: /^tinypool$/ }, (args) =>
      args.namespace === "esm-default"
        ? { path: args.path, external: true }
        : { path: args.path, namespace: "esm-default" },
    );
    b.onLoad({ filter: /.*/, namespace: "esm-default" }, (args) => ({
      contents: `module.exports = require(${JSON.stringify(args.path)}).default;`,
      loader: "js",
    }));
  },
};

const common = {
  entryPoints: [path.join(cliDir, "main.js")],
  bundle: true,
  platform: "node",
  target: "node20",
  external: ["tinypool", "playwright-core", "bullmq", "ioredis"],
  minifyWhitespace: true,
  keepNames: false,
  legalComments: "none",
  logLevel: "warning",
};

await build({
  ...common,
  outdir: cliDir,
  entryNames: "[name].bundle",
  chunkNames: "[name]-[hash].chunk",
  splitting: true,
  format: "esm",
  // CommonJS packages inside an ES module bundle still need require() for Node's own modules.
  banner: {
    js: 'import { createRequire as __blisCreateRequire } from "node:module";\nconst require = __blisCreateRequire(import.meta.url);',
  },
  plugins: [ownUrls("import.meta.url")],
});

const cjsFile = path.join(cliDir, "main.bundle.cjs");
await build({
  ...common,
  outfile: cjsFile,
  format: "cjs",
  banner: { js: 'const __blisBundleUrl = require("node:url").pathToFileURL(__filename).href;' },
  // __blisImport: import() handed in by src/cli/bundleLoader.ts.
  plugins: [ownUrls("__blisBundleUrl", "__blisImport"), esmDefaults],
});

// The loader decodes the bundle as Latin-1, which is cheaper than UTF-8 and exact only for ASCII:
// esbuild escapes other characters in strings, but not in regular expression literals.
const bundleBytes = fs.readFileSync(cjsFile);
const nonAscii = bundleBytes.findIndex((b) => b > 0x7f);
if (nonAscii >= 0) {
  const around = bundleBytes.subarray(Math.max(0, nonAscii - 60), nonAscii + 20).toString("utf8");
  throw new Error(
    `${cjsFile}: non-ASCII character at byte ${nonAscii}, in ${JSON.stringify(around)}; write it as a \\u escape`,
  );
}

// The code cache holds the bytecode of every function a short run compiled, so that a run finds
// most of its functions compiled already.
const { loadCjsBundle, codeCachePath } = await import(path.join(cliDir, "bundleLoader.js"));
fs.rmSync(codeCachePath(cjsFile), { force: true });
const loaded = loadCjsBundle(cjsFile, undefined);
const errors = [];
const code = await loaded.main(
  ["run", "--model", "meta-llama/llama-3.1-8b-instruct", "--num-requests", "200", "--rate", "100"],
  {
    stdout: () => {},
    stderrLine: (line) => errors.push(line),
  },
);
if (code !== 0) throw new Error(`code cache run failed: ${errors.join("\n")}`);
fs.writeFileSync(codeCachePath(cjsFile), loaded.script.createCachedData());

// `npx blis` runs the package's bin file directly: tsc writes it without the execute bit.
fs.chmodSync(path.join(cliDir, "bin.js"), 0o755);
