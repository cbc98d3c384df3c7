// The one SLO-class → priority map of the gateway, the saturation-gated admission policies and
// tenant budgets (docs/gateway.md "Priorities"): higher is more important, negative is sheddable.

const DEFAULT_PRIORITIES: Readonly<Record<string, number>> = {
  critical: 4,
  standard: 3,
  batch: -1,
  sheddable: -2,
  background: -3,
};

/** Priority of an empty or unknown class (it is never overridden). */
export const UNKNOWN_PRIORITY = 3;

export type PriorityMap = (sloClass: string) => number;

/** The class → priority map with `admission.slo_priorities` overrides applied. */
export function priorityMap(overrides: Readonly<Record<string, number>> = {}): PriorityMap {
  const table = new Map<string, number>(Object.entries(DEFAULT_PRIORITIES));
  for (const [k, v] of Object.entries(overrides)) if (k !== "") table.set(k, v);
  return (c) => table.get(c) ?? UNKNOWN_PRIORITY;
}

export function isSheddable(priority: number): boolean {
  return priority < 0;
}

/** How the shed-by-tier counters name a class: an empty class is counted as `standard`. */
export function tierName(sloClass: string): string {
  return sloClass === "" ? "standard" : sloClass;
}
