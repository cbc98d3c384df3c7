// What each command promises on stdout when it succeeds, as checks that return the first problem
// (null when the output is well-formed): `blis run` (docs/behavior.md "Output, in order"),
// `blis sweep` in its three formats and `blis optimize`.

const RUN_HEADERS = [
  "Simulation Metrics",
  "Fitness Evaluation",
  "Anomaly Counters",
  "KV Cache Metrics",
  "Per-SLO Metrics",
  "Fairness",
  "Per-Tenant Metrics",
  "Session Metrics",
  "PD Metrics",
  "Trace Summary",
  "LoRA Adapters",
  "Autoscaler",
];

const COUNT_KEYS = [
  "completed_requests",
  "still_queued",
  "still_running",
  "injected_requests",
  "total_input_tokens",
  "total_output_tokens",
  "preemption_count",
  "dropped_unservable",
];
const VALUE_KEYS = [
  "vllm_estimated_duration_s",
  "responses_per_sec",
  "tokens_per_sec",
  ...["e2e", "ttft", "itl"].flatMap((m) => ["mean", "p90", "p95", "p99"].map((s) => `${m}_${s}_ms`)),
  "scheduling_delay_p99_ms",
];

const LATENCY_KEYS = new Set(VALUE_KEYS.filter((k) => k.endsWith("_ms")));

/** Words that only appear when a value was printed without being formatted. */
const UNFORMATTED = /\b(NaN|undefined|Infinity)\b|\[object /;

export interface RunExpectations {
  fitness: boolean;
  fairness: boolean;
  traceSummary: boolean;
}

interface Section {
  header: string;
  body: string[];
}

function sections(stdout: string): Section[] | string {
  if (!stdout.endsWith("\n")) return "stdout does not end with a newline";
  const out: Section[] = [];
  for (const line of stdout.slice(0, -1).split("\n")) {
    const m = /^=== (.+) ===$/.exec(line);
    if (m !== null) out.push({ header: m[1]!, body: [] });
    else if (out.length === 0) return `text before the first section: ${JSON.stringify(line)}`;
    else out[out.length - 1]!.body.push(line);
  }
  return out;
}

function metricsBlockProblem(s: Section, last: boolean): string | null {
  let block: unknown;
  try {
    block = JSON.parse(s.body.join("\n"));
  } catch (e) {
    return `a metrics block is not JSON (${(e as Error).message})`;
  }
  if (typeof block !== "object" || block === null || Array.isArray(block))
    return "a metrics block is not a JSON object";
  const b = block as Record<string, unknown>;
  const id = b["instance_id"];
  if (typeof id !== "string" || !(last ? id === "cluster" : /^instance_\d+$/.test(id)))
    return `unexpected instance_id ${JSON.stringify(id)}${last ? " (the last block must be the cluster's)" : ""}`;
  for (const k of COUNT_KEYS) {
    const v = b[k];
    if (typeof v !== "number" || !Number.isInteger(v) || v < 0)
      return `${id} block: ${k} is ${JSON.stringify(v)}, not a count`;
  }
  // With nothing completed, the cluster block has null for the latencies no request has (C14).
  const noneDone = last && b["completed_requests"] === 0;
  for (const k of VALUE_KEYS) {
    const ok = typeof b[k] === "number" || (noneDone && b[k] === null && LATENCY_KEYS.has(k));
    if (!ok) return `${id} block: ${k} is ${JSON.stringify(b[k])}, not a number`;
  }
  return null;
}

/** Checks the stdout of a successful `blis run`. */
export function runStdoutProblem(stdout: string, expect: RunExpectations): string | null {
  if (stdout === "") return "no metrics block (stdout is empty)";
  const secs = sections(stdout);
  if (typeof secs === "string") return secs;
  const nBlocks = secs.findIndex((s) => s.header !== "Simulation Metrics");
  const blocks = nBlocks < 0 ? secs : secs.slice(0, nBlocks);
  if (blocks.length === 0) return `no metrics block (the first section is "${secs[0]!.header}")`;
  for (const [i, s] of blocks.entries()) {
    const p = metricsBlockProblem(s, i === blocks.length - 1);
    if (p !== null) return p;
  }
  let order = 0;
  for (const s of secs.slice(blocks.length)) {
    const at = RUN_HEADERS.indexOf(s.header);
    if (at <= order) return `section "${s.header}" is unknown, repeated or out of order`;
    order = at;
    const bad = s.body.find((l) => !/^\s*[^:\s][^:]*:( .*)?$/.test(l));
    if (s.body.length === 0 || bad !== undefined)
      return `section "${s.header}" has a malformed line ${JSON.stringify(bad ?? "")}`;
  }
  const m = UNFORMATTED.exec(stdout);
  if (m !== null) return `stdout contains "${m[0]}"`;
  const has = (h: string): boolean => secs.some((s) => s.header === h);
  if (expect.fitness && !/^Score: -?\d/m.test(stdout)) return "--fitness-weights given but no fitness score printed";
  if (expect.fairness && !has("Fairness")) return "--print-fairness given but no fairness section";
  if (expect.traceSummary && !has("Trace Summary")) return "--summarize-trace given but no trace summary";
  return null;
}

/** Splits one CSV line (RFC 4180 quoting). */
function csvFields(line: string): number {
  let n = 1;
  let quoted = false;
  for (const ch of line) {
    if (ch === '"') quoted = !quoted;
    else if (ch === "," && !quoted) n++;
  }
  return n;
}

function csvProblem(stdout: string): string | null {
  let width = -1;
  for (const line of stdout.split("\n")) {
    if (line === "") width = -1;
    else if (line.startsWith("# ")) width = 0;
    else if (width === 0) width = csvFields(line);
    else if (width < 0) return `CSV row outside a table: ${JSON.stringify(line)}`;
    else if (csvFields(line) !== width)
      return `CSV row with ${csvFields(line)} fields in a table of ${width}: ${JSON.stringify(line)}`;
  }
  return null;
}

/** Checks the stdout of a successful `blis sweep` in the given --format. */
export function sweepStdoutProblem(stdout: string, format: string): string | null {
  if (stdout.trim() === "") return "no tables on stdout";
  const m = /undefined|\[object /.exec(stdout);
  if (m !== null) return `stdout contains "${m[0]}"`;
  if (format === "json") {
    try {
      const v = JSON.parse(stdout) as unknown;
      return typeof v === "object" && v !== null && "runs" in v ? null : "the JSON report has no runs";
    } catch (e) {
      return `--format json: stdout is not JSON (${(e as Error).message})`;
    }
  }
  if (format === "csv") return csvProblem(stdout);
  const lines = stdout.trimEnd().split("\n");
  if (!/^=== Sweep: .* ===$/.test(lines[0]!)) return `unexpected first line ${JSON.stringify(lines[0])}`;
  if (!lines[lines.length - 1]!.startsWith("Result: ")) return `the report does not end with a result line`;
  return null;
}

/** Checks the stdout of a successful `blis optimize`. */
export function optimizeStdoutProblem(stdout: string): string | null {
  const first = stdout.split("\n")[0] ?? "";
  if (!/^=== blis optimize: .* ===$/.test(first)) return `unexpected first line ${JSON.stringify(first)}`;
  if (!/^Convergence:$/m.test(stdout)) return "no convergence table";
  const m = /undefined|\[object /.exec(stdout);
  return m === null ? null : `stdout contains "${m[0]}"`;
}
