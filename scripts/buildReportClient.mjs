// Build step: bundles the report page's script (src/report/client/, browser TypeScript that
// tsc checks with its own tsconfig) into one minified file beside the compiled report code,
// dist/src/report/client.bundle.js, which html.ts inlines into every report.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const result = await build({
  entryPoints: [path.join(root, "src", "report", "client", "main.ts")],
  outfile: path.join(root, "dist", "src", "report", "client.bundle.js"),
  bundle: true,
  format: "iife",
  platform: "browser",
  target: "es2020",
  minify: true,
  legalComments: "none",
  metafile: true,
  logLevel: "warning",
});
// Chart.js is inlined into the page on its own (its UMD build): importing it here other than as a
// type would bundle a second copy.
const foreign = Object.keys(result.metafile.inputs).filter((f) => f.includes("node_modules"));
if (foreign.length > 0) {
  console.error(`report page script: only type imports may come from packages, bundled: ${foreign.join(", ")}`);
  process.exit(1);
}
