// The `priority` body field sent with an SLO class (docs/observe.md "Requests"). vLLM serves
// lower values first; the classes keep the gateway's order (critical 4, standard 3, batch −1,
// sheddable −2, background −3, others 3), inverted as 4 − class priority.

const CLASS_PRIORITY: Readonly<Record<string, number>> = {
  critical: 4,
  standard: 3,
  batch: -1,
  sheddable: -2,
  background: -3,
};
const DEFAULT_PRIORITY = 3;
const MAX_PRIORITY = 4;

/** vLLM priority of an SLO class: critical 0, standard (and unknown) 1, batch 5, sheddable 6, background 7. */
export function vllmPriority(sloClass: string): number {
  return MAX_PRIORITY - (CLASS_PRIORITY[sloClass] ?? DEFAULT_PRIORITY);
}
