// A run that cannot fit in the V8 heap is refused before anything is generated or simulated, with
// one line saying how much would fit (docs/behavior.md "Validation order and exit status"), instead of dying after
// minutes with a heap-exhausted crash.
import v8 from "node:v8";
import type { WorkloadSpec } from "../workload/index.js";
import { UserError } from "../util/errors.js";

/**
 * Live bytes per request at the run's peak: measured 577–690 B (default and 4000-token prompts,
 * 100k–400k requests, stable and overloaded loads: ledger, queued requests, results), rounded up
 * for the garbage collector's headroom. A 304 MB heap ran 400k requests and ran out at 600k.
 */
export const BYTES_PER_REQUEST = 700;
/** Per instance (KV store, queues, step buffers): 1000 → 4000 instances added 15 KB each to the RSS. */
export const BYTES_PER_INSTANCE = 20_000;

/** What drives a run's request count, for naming the flag in the refusal. */
export interface RequestBound {
  /** Most requests the run can generate (an expected count for a rate over a horizon). */
  requests: number;
  /** The flag to lower, and its value. */
  flag: string;
  value: number;
  /** What one unit of the flag is ("requests", "virtual users"). */
  unit: string;
}

/**
 * The most requests the workload generates: the --num-requests cap; else the expected arrivals of
 * the rate over a finite horizon plus one seed request per virtual user (closed loop: each user's
 * follow-ups depend on the service, so the users are the part known beforehand). Null: unbounded
 * before the run (generation ends with lifecycle windows).
 */
export function requestBound(
  spec: WorkloadSpec,
  maxRequests: number,
  horizonUs: number,
  concurrencyFlag: boolean,
): RequestBound | null {
  let users = 0;
  for (const c of spec.clients) users += c.concurrency ?? 0;
  if (maxRequests > 0) return { requests: maxRequests, flag: "--num-requests", value: maxRequests, unit: "requests" };
  const open = Number.isFinite(horizonUs) && horizonUs < 2 ** 63 ? (spec.aggregate_rate * horizonUs) / 1e6 : 0;
  if (users > open)
    return {
      requests: users + open,
      flag: concurrencyFlag ? "--concurrency" : "clients[].concurrency",
      value: users,
      unit: "virtual users",
    };
  if (open > 0) return { requests: open, flag: "--horizon", value: horizonUs, unit: "requests" };
  return null;
}

/** The heap this process may use (V8's limit, set by --max-old-space-size). */
export function heapBudgetBytes(): number {
  return v8.getHeapStatistics().heap_size_limit;
}

const gb = (b: number): string => (b < 1e9 ? `${Math.round(b / 1e6)} MB` : `${(b / 1e9).toFixed(1)} GB`);

/** Two significant digits, rounded down, with thousands separators. */
function roughDown(n: number): string {
  if (n < 100) return String(Math.max(0, Math.floor(n)));
  const p = 10 ** (Math.floor(Math.log10(n)) - 1);
  return (Math.floor(n / p) * p).toLocaleString("en-US");
}

/** Refuses the run (UserError, exit 1) when its estimate exceeds the budget. */
export function checkMemoryBudget(b: RequestBound | null, instances: number, budget = heapBudgetBytes()): void {
  if (b === null) return;
  const fixed = instances * BYTES_PER_INSTANCE;
  const need = fixed + b.requests * BYTES_PER_REQUEST;
  if (need <= budget) return;
  // How far the driving flag may go: the part of the count it does not drive stays.
  const perUnit = BYTES_PER_REQUEST * (b.flag === "--horizon" ? b.requests / b.value : 1);
  const other = b.flag === "--horizon" ? 0 : b.requests - b.value;
  const fits = Math.max(0, (budget - fixed - other * BYTES_PER_REQUEST) / perUnit);
  const what =
    b.flag === "--horizon" ? `--horizon ${b.value} (about ${roughDown(b.requests)} requests)` : `${b.flag} ${b.value}`;
  const most =
    b.flag === "--horizon" ? `a --horizon of at most ~${roughDown(fits)}` : `at most ~${roughDown(fits)} ${b.unit}`;
  throw new UserError(
    `${what} needs about ${gb(need)}; this process may use ${gb(budget)} (Node heap limit): ${most} fit; ` +
      `raise the limit (NODE_OPTIONS=--max-old-space-size=MB) or lower ${b.flag}`,
  );
}
