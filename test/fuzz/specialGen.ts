// Two case families beyond run flags: every command that reads a file, given a device, a FIFO, a
// link to /dev/zero, a directory or a missing path where the file should be ("files"); and runs
// with a plugin that misbehaves in one of the ways the plugin guards turn into an error line
// ("plugin": throwing, wrong shapes, non-finite or missing scores, broken modules, and what needs
// the watchdog: endless loops, promises that never settle, process.exit, unhandled rejections).

import fc from "fast-check";
import { DIR, printable, type FuzzCase, type FuzzFile } from "./case.js";
import { LLAMA } from "./runArgs.js";

interface Target {
  path: string;
  files: FuzzFile[];
  dirs: string[];
}

const target = (path: string, files: FuzzFile[] = [], dirs: string[] = []): Target => ({ path, files, dirs });

/** Where a file should be: never a readable regular file. */
const unreadable = (name: string): fc.Arbitrary<Target> =>
  fc.oneof(
    {
      weight: 3,
      arbitrary: fc
        .constantFrom<"fifo" | "zero-link">("fifo", "zero-link")
        .map((kind) => target(`${DIR}/${name}`, [{ name, content: "", kind }])),
    },
    { weight: 2, arbitrary: fc.constantFrom("/dev/zero", "/dev/urandom", "/dev/null").map((p) => target(p)) },
    { weight: 1, arbitrary: fc.constant(target(`${DIR}/${name}`, [], [name])) },
    { weight: 1, arbitrary: fc.constant(target(`${DIR}/missing-${name}`)) },
  );

/** A directory whose `file` is unreadable (report DIR, --model-config-folder DIR). */
const dirWith = (dir: string, file: string): fc.Arbitrary<Target> =>
  fc
    .constantFrom<"fifo" | "zero-link">("fifo", "zero-link")
    .map((kind) => target(`${DIR}/${dir}`, [{ name: `${dir}/${file}`, content: "", kind }]));

const RUN = ["run", "--model", LLAMA, "--num-requests", "3"];

/** A command line with one unreadable input, by command. */
const COMMANDS: fc.Arbitrary<[string[], Target]>[] = [
  unreadable("results.json").map((t) => [["goodput", t.path], t]),
  unreadable("results.json").map((t) => [["goodput", t.path, "--slo-ttft", "default=1s"], t]),
  unreadable("saved.json").map((t) => [["report", t.path], t]),
  fc
    .constantFrom("summary.json", "report.json")
    .chain((f) => dirWith("sweep-out", f))
    .map((t) => [["report", t.path], t]),
  unreadable("start.yaml").map((t) => [
    ["fit", "--data", "h100-llama-2-7b-tp1-general", "--start", t.path, "--out", `${DIR}/fit.yaml`],
    t,
  ]),
  unreadable("measured.csv").map((t) => [["fit", "--data", t.path, "--out", `${DIR}/fit.yaml`], t]),
  unreadable("header.yaml").map((t) => [
    ["replay", "--model", LLAMA, "--trace-header", t.path, "--trace-data", t.path],
    t,
  ]),
  unreadable("trace.csv").map((t) => [["convert", "csv-trace", "--file", t.path], t]),
  unreadable("space.yaml").map((t) => [["optimize", t.path, "--out", `${DIR}/opt`], t]),
  unreadable("plugin.mjs").map((t) => [[...RUN, "--plugin", t.path], t]),
  dirWith("config", "config.json").map((t) => [
    [...RUN, "--latency-model", "roofline", "--hardware", "H100", "--tp", "1", "--model-config-folder", t.path],
    t,
  ]),
  fc
    .constantFrom(
      "--workload-spec",
      "--policy-config",
      "--latency-coeffs",
      "--hardware-config",
      "--defaults-filepath",
      "--saturation-config",
    )
    .chain((flag) => unreadable("input.yaml").map((t): [string[], Target] => [[...RUN, flag, t.path], t])),
];

export const filesCaseArb: fc.Arbitrary<FuzzCase> = fc.oneof(...COMMANDS).map(([argv, t]) =>
  printable({
    family: "files",
    argv,
    files: t.files,
    dirs: t.dirs,
    keys: ["fifo", "character device", "directory", "no such file"],
  }),
);

/** One way a plugin misbehaves, as the source of register()'s body (and of the module around it). */
const MISBEHAVIOUR: string[] = [
  'throw new Error("register failed");',
  'await Promise.reject(new Error("async register failed"));',
  'api.registerScorer("", () => ({ name: "x", score() {}, observe() {} }));',
  'api.registerScorer("s", "not a factory");',
  'api.registerScorer("s", () => null);',
  'api.registerScorer("s", () => ({ name: "s" }));',
  'api.registerScorer("s", () => ({ name: "s", score(_r, _s, out) { out[0] = NaN; }, observe() {} }));',
  'api.registerScorer("s", () => ({ name: "s", score(_r, _s, out) { out[0] = Infinity; }, observe() {} }));',
  'api.registerScorer("s", () => ({ name: "s", score() { throw new Error("boom"); }, observe() {} }));',
  'api.registerScorer("s", () => ({ name: "s", score() { throw "a string"; }, observe() {} }));',
  'api.registerScorer("s", () => ({ name: "s", score() {}, observe() { throw new Error("observe"); } }));',
  'api.registerScorer("s", () => { throw new Error("factory"); });',
  'api.registerScorer("queue-depth", () => ({ name: "q", score() {}, observe() {} }));',
  'api.registerScorer("s", () => ({ name: "s", score() {}, observe() {} })); api.registerScorer("s", () => ({}));',
  'api.registerPriorityPolicy("p", () => ({ name: "p" }));',
  'api.registerAdmissionPolicy("a", () => ({ name: "a", reason: "", admit: () => "yes" }));',
  'api.registerAdmissionPolicy("a", () => ({ name: "a", reason: "", admit() { throw new RangeError("deep"); } }));',
  "return 42;",
  // What only a watchdog outside the plugin's thread can stop or report (src/cli/pluginHost.ts).
  "for (;;) {}",
  'api.registerScorer("s", () => ({ name: "s", score() { for (;;) {} }, observe() {} }));',
  'api.registerPriorityPolicy("p", () => ({ name: "p", compute() { for (;;) {} } }));',
  "await new Promise(() => {});",
  "process.exit(0);",
  "process.exit(3);",
  'api.registerScorer("s", () => ({ name: "s", score() { process.exit(0); }, observe() {} }));',
  'api.registerAdmissionPolicy("a", () => ({ name: "a", reason: "", admit() { process.exit(1); } }));',
  'Promise.reject(new Error("left unhandled"));',
  'api.registerScorer("s", () => ({ name: "s", score() {}, observe() {} })); Promise.reject("a bare reason");',
  'setTimeout(() => { throw new Error("from a timer"); }, 0); await new Promise((r) => setTimeout(r, 20));',
];

const MODULE_SHAPE = [
  (body: string) => `export default { name: "fz", async register(api) { ${body} } };\n`,
  (body: string) => `export const name = "fz";\nexport async function register(api) { ${body} }\n`,
];
const BROKEN_MODULES = [
  "export default {};\n",
  "export default { register: 5 };\n",
  "this is not javascript (\n",
  'throw new Error("top-level");\n',
  'import "./does-not-exist.mjs";\nexport function register() {}\n',
  "await new Promise(() => {});\nexport function register() {}\n",
  "process.exit(0);\nexport function register() {}\n",
  "for (;;) {}\nexport function register() {}\n",
];

/** What the run selects so that the plugin's policy is used (or not, when it registers none). */
const USE = fc.constantFrom<string[]>(
  ["--routing-policy", "weighted", "--routing-scorers", "s:1"],
  ["--routing-policy", "weighted", "--routing-scorers", "s:1,queue-depth:1"],
  ["--priority-policy", "p"],
  ["--admission-policy", "a"],
  [],
);

const moduleText: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
      .tuple(fc.constantFrom(...MISBEHAVIOUR), fc.constantFrom(...MODULE_SHAPE))
      .map(([b, shape]) => shape(b)),
  },
  { weight: 1, arbitrary: fc.constantFrom(...BROKEN_MODULES) },
);

export const pluginCaseArb: fc.Arbitrary<FuzzCase> = fc
  .tuple(
    moduleText,
    USE,
    fc.constantFrom("3", "20"),
    fc.constantFrom("1", "3"),
    fc.boolean(),
    fc.constantFrom("0.2", "1"),
  )
  .map(([text, use, n, instances, option, budget]) =>
    printable({
      family: "plugin",
      argv: [
        "run",
        "--model",
        LLAMA,
        "--num-requests",
        n,
        "--num-instances",
        instances,
        "--plugin",
        `${DIR}/plugin.mjs`,
        ...(option ? ["--plugin-option", "fz.k=v"] : []),
        "--plugin-timeout",
        budget,
        ...use,
      ],
      files: [{ name: "plugin.mjs", content: text }],
      dirs: [],
      keys: ["plugin", "fz", "s", "p", "a", "register"],
    }),
  );
