// SLO tiers shared by the SLO-aware extensions (docs/behavior.md "Admission", tier mapping).

export const TIER_SHEDDABLE = 0;
export const TIER_STANDARD = 1;
export const TIER_CRITICAL = 2;

export function tierOf(sloClass: string): number {
  switch (sloClass) {
    case "critical":
      return TIER_CRITICAL;
    case "sheddable":
    case "batch":
    case "background":
      return TIER_SHEDDABLE;
    default:
      return TIER_STANDARD;
  }
}

/**
 * Parameters of slo-tiered / slo-class priority and the priority bridge (docs/behavior.md
 * "Priorities and schedulers").
 */
export interface SloParams {
  baseCritical: number;
  baseStandard: number;
  baseSheddable: number;
  ageWeight: number;
  thresholdCritical: number;
  thresholdStandard: number;
  thresholdSheddable: number;
}

/** Default weight of prefix affinity against load per tier (`--slo-cache-weights`, slo-priority scorer). */
export const DEFAULT_SLO_CACHE_WEIGHTS = { critical: 0.25, standard: 0.5, sheddable: 0.75 } as const;

export const DEFAULT_SLO_PARAMS: SloParams = {
  baseCritical: 10,
  baseStandard: 5,
  baseSheddable: 1,
  ageWeight: 0.00001,
  thresholdCritical: 0,
  thresholdStandard: 100000,
  thresholdSheddable: 100000,
};

export function baseScore(p: SloParams, tier: number): number {
  return tier === TIER_CRITICAL ? p.baseCritical : tier === TIER_STANDARD ? p.baseStandard : p.baseSheddable;
}

export function urgencyThreshold(p: SloParams, tier: number): number {
  return tier === TIER_CRITICAL
    ? p.thresholdCritical
    : tier === TIER_STANDARD
      ? p.thresholdStandard
      : p.thresholdSheddable;
}
