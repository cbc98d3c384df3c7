// Instance lifecycle states and their legal moves (docs/autoscaling.md "Instance lifecycle").
// Only Active and WarmingUp instances are routable.

import { InvariantError } from "../util/errors.js";

export const SCHEDULING = 0;
export const LOADING = 1;
export const WARMING_UP = 2;
export const ACTIVE = 3;
export const DRAINING = 4;
export const TERMINATED = 5;

export const STATE_NAMES = ["Scheduling", "Loading", "WarmingUp", "Active", "Draining", "Terminated"] as const;

/** Allowed targets per state, as bit masks over the state numbers. */
const ALLOWED: readonly number[] = [
  (1 << LOADING) | (1 << TERMINATED),
  (1 << WARMING_UP) | (1 << ACTIVE) | (1 << TERMINATED),
  (1 << ACTIVE) | (1 << DRAINING) | (1 << TERMINATED),
  (1 << DRAINING) | (1 << TERMINATED),
  1 << TERMINATED,
  0,
];

export function isRoutable(state: number): boolean {
  return state === ACTIVE || state === WARMING_UP;
}

/** Throws an internal error for a move the lifecycle does not allow. */
export function checkTransition(id: string, from: number, to: number): void {
  if (((ALLOWED[from] ?? 0) & (1 << to)) === 0) {
    throw new InvariantError(
      `instance ${id}: illegal lifecycle move ${STATE_NAMES[from] ?? from} -> ${STATE_NAMES[to] ?? to}`,
    );
  }
}
