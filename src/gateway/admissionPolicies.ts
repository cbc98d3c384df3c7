// The saturation-gated admission policies of today's BLIS (docs/gateway.md "Saturation-gated
// admission"): registry entries like every admission policy.
import { z } from "zod";
import type { AdmissionDescriptor, AdmissionPolicy } from "../cluster/admission/admission.js";
import type { Request } from "../core/request.js";
import type { RouterState } from "../cluster/snapshot.js";
import { anyNumber } from "../util/policyRegistry.js";
import { UserError } from "../util/errors.js";
import { isSheddable, priorityMap, type PriorityMap } from "./priorities.js";
import { utilization } from "./detectors.js";
import { formatFixed } from "../util/goFormat.js";

const IntMap = z.record(z.string(), z.number().int());

/** Sheds classes below a priority while the busiest candidate's effective load exceeds a threshold. */
export class TierShedAdmission implements AdmissionPolicy {
  readonly name = "tier-shed";
  reason = "";
  constructor(
    private readonly threshold: number,
    private readonly minPriority: number,
    private readonly priority: PriorityMap,
  ) {}
  admit(req: Request, state: RouterState): boolean {
    let maxLoad = 0;
    for (const s of state.snapshots) if (s.effectiveLoad > maxLoad) maxLoad = s.effectiveLoad;
    const p = this.priority(req.sloClass);
    if (maxLoad <= this.threshold || p >= this.minPriority) {
      this.reason = "";
      return true;
    }
    this.reason = `tier-shed: class=${req.sloClass} priority=${p} < min=${this.minPriority} load=${maxLoad}`;
    return false;
  }
}

export const tierShedParams = z.object({
  tierShedThreshold: z.number().int().default(0),
  /** Absent: 3 when a policy bundle selects tier-shed, else 0 (sim/applyBundle.ts). */
  tierShedMinPriority: z.number().int().optional(),
  sloPriorities: IntMap.default({}),
});

export const tierShed: AdmissionDescriptor<z.infer<typeof tierShedParams>> = {
  name: "tier-shed",
  description: "sheds low-priority classes while the busiest instance is over a load",
  params: tierShedParams,
  flags: [
    {
      key: "tierShedThreshold",
      flag: "--tier-shed-threshold",
      type: "int",
      group: "policy",
      help: "tier-shed: effective load (queued + running + in flight) of the busiest instance above which classes are shed",
      bundle: "admission.tier_shed_threshold",
    },
    {
      key: "tierShedMinPriority",
      flag: "--tier-shed-min-priority",
      type: "int",
      group: "policy",
      help: "tier-shed: classes with a lower priority are shed under load (default 3 from a policy bundle, else 0)",
      bundle: "admission.tier_shed_min_priority",
    },
  ],
  validate(p) {
    if (p.tierShedThreshold < 0) throw new UserError(`tier_shed_threshold must be >= 0, got ${p.tierShedThreshold}`);
  },
  create: (p) => new TierShedAdmission(p.tierShedThreshold, p.tierShedMinPriority ?? 0, priorityMap(p.sloPriorities)),
};

/** The gateway-API-inference-extension rule: sheddable classes are rejected while the pool is saturated. */
export class GaieLegacyAdmission implements AdmissionPolicy {
  readonly name = "gaie-legacy";
  reason = "";
  constructor(
    private readonly qd: number,
    private readonly kv: number,
    private readonly priority: PriorityMap,
  ) {}
  admit(req: Request, state: RouterState): boolean {
    if (!isSheddable(this.priority(req.sloClass))) {
      this.reason = "";
      return true;
    }
    const s = utilization(state, this.qd, this.kv);
    if (s < 1) {
      this.reason = "";
      return true;
    }
    this.reason = `gaie-saturated: class=${req.sloClass} saturation=${formatFixed(s, 2)}`;
    return false;
  }
}

export const gaieLegacyParams = z.object({
  gaieQdThreshold: anyNumber.default(5),
  gaieKvThreshold: anyNumber.default(0.8),
  sloPriorities: IntMap.default({}),
});

export const gaieLegacy: AdmissionDescriptor<z.infer<typeof gaieLegacyParams>> = {
  name: "gaie-legacy",
  description: "sheds sheddable classes while the pool is saturated (queue depth or KV use)",
  params: gaieLegacyParams,
  flags: [
    {
      key: "gaieQdThreshold",
      flag: "--gaie-qd-threshold",
      type: "float",
      group: "policy",
      help: "gaie-legacy: queue depth at which an instance counts as saturated",
      bundle: "admission.gaie_qd_threshold",
    },
    {
      key: "gaieKvThreshold",
      flag: "--gaie-kv-threshold",
      type: "float",
      group: "policy",
      help: "gaie-legacy: KV utilization at which an instance counts as saturated, in (0, 1]",
      bundle: "admission.gaie_kv_threshold",
    },
  ],
  validate(p) {
    if (!Number.isFinite(p.gaieQdThreshold) || p.gaieQdThreshold <= 0) {
      throw new UserError(`gaie_qd_threshold must be a finite value > 0, got ${p.gaieQdThreshold}`);
    }
    if (!Number.isFinite(p.gaieKvThreshold) || p.gaieKvThreshold <= 0 || p.gaieKvThreshold > 1) {
      throw new UserError(`gaie_kv_threshold must be a finite value in (0, 1.0], got ${p.gaieKvThreshold}`);
    }
  },
  create: (p) => new GaieLegacyAdmission(p.gaieQdThreshold, p.gaieKvThreshold, priorityMap(p.sloPriorities)),
};
