// Acceptance profiles and the draw of accepted proposals (docs/speculative.md "Acceptance").

import type { Request } from "../core/request.js";
import type { Rng } from "../engine/rng.js";
import type { SpeculativeConfig } from "./config.js";

const TWO_POW_32 = 4294967296;

/**
 * The run's acceptance profiles: the run-wide one (index 0), then one per SLO-class and tenant
 * override. Each holds, per position, P(accepted | the ones before accepted) scaled to 2^32, so a
 * draw is one uint32 comparison (rate 1 always accepts, rate 0 never does).
 */
export class AcceptanceTable {
  readonly profiles: Float64Array[] = [];
  private readonly bySlo = new Map<string, number>();
  private readonly byTenant = new Map<string, number>();

  constructor(cfg: SpeculativeConfig) {
    this.add(cfg.rates);
    for (const [cls, rates] of cfg.bySloClass) this.bySlo.set(cls === "default" ? "" : cls, this.add(rates));
    for (const [tenant, rates] of cfg.byTenant) this.byTenant.set(tenant, this.add(rates));
  }

  private add(rates: readonly number[]): number {
    const t = new Float64Array(rates.length);
    for (let i = 0; i < rates.length; i++) t[i] = rates[i]! * TWO_POW_32;
    this.profiles.push(t);
    return this.profiles.length - 1;
  }

  /**
   * The request's profile: its tenant's override, else its SLO class's, else the run-wide one (cached on the request).
   */
  profileOf(r: Request): Float64Array {
    let p = r.specProfile;
    if (p < 0) {
      p = this.byTenant.get(r.tenantId) ?? this.bySlo.get(r.sloClass) ?? 0;
      r.specProfile = p;
    }
    return this.profiles[p]!;
  }
}

/** Accepted proposals out of k: position i is tried only when every earlier one was accepted. */
export function drawAccepted(rng: Rng, thresholds: Float64Array, k: number): number {
  let a = 0;
  while (a < k && rng.uint32() < thresholds[a]!) a++;
  return a;
}
