import { z } from "zod";
import type { AdmissionDescriptor, AdmissionPolicy } from "./admission.js";
import { anyNumber } from "../../util/policyRegistry.js";
import { UserError } from "../../util/errors.js";
import type { Request } from "../../core/request.js";
import type { RouterState } from "../snapshot.js";

/**
 * Token bucket charged by prompt length, refilled per simulated second (docs/behavior.md
 * "Admission").
 */
export class TokenBucketAdmission implements AdmissionPolicy {
  readonly name = "token-bucket";
  reason = "";
  private level: number;
  private last = 0;
  constructor(
    private readonly capacity: number,
    private readonly refillRate: number,
  ) {
    this.level = capacity;
  }
  admit(req: Request, state: RouterState): boolean {
    const t = state.clock;
    const e = t - this.last;
    if (e > 0) {
      this.level = Math.min(this.capacity, this.level + (e * this.refillRate) / 1000000);
      this.last = t;
    }
    const cost = req.inputLen;
    if (this.level >= cost) {
      this.level = this.level - cost;
      this.reason = "";
      return true;
    }
    this.reason = "insufficient tokens";
    return false;
  }
}

export const tokenBucketParams = z.object({
  tokenBucketCapacity: anyNumber.default(10000),
  tokenBucketRefillRate: anyNumber.default(1000),
});

export const tokenBucket: AdmissionDescriptor<z.infer<typeof tokenBucketParams>> = {
  name: "token-bucket",
  description: "token bucket charged by prompt tokens",
  params: tokenBucketParams,
  flags: [
    {
      key: "tokenBucketCapacity",
      flag: "--token-bucket-capacity",
      type: "float",
      group: "policy",
      help: "token-bucket capacity (prompt tokens)",
      bundle: "admission.token_bucket_capacity",
    },
    {
      key: "tokenBucketRefillRate",
      flag: "--token-bucket-refill-rate",
      type: "float",
      group: "policy",
      help: "token-bucket refill, tokens per simulated second",
      bundle: "admission.token_bucket_refill_rate",
    },
  ],
  validate(p) {
    if (!Number.isFinite(p.tokenBucketCapacity) || p.tokenBucketCapacity <= 0) {
      throw new UserError(`--token-bucket-capacity must be a finite value > 0, got ${p.tokenBucketCapacity}`);
    }
    if (!Number.isFinite(p.tokenBucketRefillRate) || p.tokenBucketRefillRate <= 0) {
      throw new UserError(`--token-bucket-refill-rate must be a finite value > 0, got ${p.tokenBucketRefillRate}`);
    }
  },
  summary: (p) => `Token bucket: capacity=${p.tokenBucketCapacity}, refill rate=${p.tokenBucketRefillRate}/s`,
  create: (p) => new TokenBucketAdmission(p.tokenBucketCapacity, p.tokenBucketRefillRate),
};
