// Instance roles and pools of a PD cluster (docs/prefill-decode.md "Topology").
import { UserError } from "../util/errors.js";

export const ROLE_PREFILL = 1;
export const ROLE_DECODE = 2;
export const ROLE_ENCODE = 4;

/** Roles by instance index and the pools in index order; fixed for the run. */
export interface PdTopology {
  prefill: number;
  decode: number;
  shared: number;
  encode: number;
  /** Role bits of each instance (0 = none: never routed to in PD mode). */
  roles: Uint8Array;
  /** Instances whose role contains P (prefill-only, then shared), in index order. */
  prefillPool: number[];
  /** Instances whose role contains D. */
  decodePool: number[];
  encodePool: number[];
}

export interface PoolCounts {
  prefill: number;
  decode: number;
  shared: number;
  encode: number;
}

/** Whether the counts turn PD mode on. */
export const pdEnabled = (c: PoolCounts): boolean => c.prefill + c.decode + c.shared > 0;

/** The topology checks, in order (docs/prefill-decode.md "Topology validation"). */
export function validateTopology(c: PoolCounts, numInstances: number): void {
  const fail = (msg: string): never => {
    throw new UserError(`Invalid PD pool topology: ${msg}`);
  };
  const names: [number, string][] = [
    [c.prefill, "prefill-instances"],
    [c.decode, "decode-instances"],
    [c.shared, "prefill-decode-instances"],
    [c.encode, "encode-instances"],
  ];
  for (const [v, name] of names) if (v < 0) fail(`${name} must be >= 0, got ${v}`);
  const total = c.prefill + c.decode + c.shared + c.encode;
  if (total === 0) return;
  if (c.encode > 0 && !pdEnabled(c)) {
    fail(
      "encode-instances (E) requires a decode-capable pool: set --prefill-instances, --decode-instances, or --prefill-decode-instances > 0",
    );
  }
  if (pdEnabled(c) && c.shared === 0 && (c.prefill === 0 || c.decode === 0)) {
    fail(
      "both --prefill-instances and --decode-instances must be set when PD disaggregation is enabled without shared-role pods " +
        `(got prefill=${c.prefill}, decode=${c.decode})`,
    );
  }
  if (total > numInstances) {
    fail(
      "prefill-instances (P) + decode-instances (D) + prefill-decode-instances (S) + encode-instances (E) = " +
        `${total} exceeds num-instances (${numInstances})`,
    );
  }
}

/** Roles by index: prefill, decode, shared, encode, then none. */
export function buildTopology(c: PoolCounts, numInstances: number): PdTopology {
  const roles = new Uint8Array(numInstances);
  let k = 0;
  for (let i = 0; i < c.prefill; i++) roles[k++] = ROLE_PREFILL;
  for (let i = 0; i < c.decode; i++) roles[k++] = ROLE_DECODE;
  for (let i = 0; i < c.shared; i++) roles[k++] = ROLE_PREFILL | ROLE_DECODE;
  for (let i = 0; i < c.encode; i++) roles[k++] = ROLE_ENCODE;
  const pool = (bit: number): number[] => {
    const out: number[] = [];
    for (let i = 0; i < numInstances; i++) if ((roles[i]! & bit) !== 0) out.push(i);
    return out;
  };
  return {
    ...c,
    roles,
    prefillPool: pool(ROLE_PREFILL),
    decodePool: pool(ROLE_DECODE),
    encodePool: pool(ROLE_ENCODE),
  };
}

/** The role as printed ("prefill-decode" for a shared instance). */
export function roleName(bits: number): string {
  if (bits === (ROLE_PREFILL | ROLE_DECODE)) return "prefill-decode";
  if (bits === ROLE_PREFILL) return "prefill";
  if (bits === ROLE_DECODE) return "decode";
  if (bits === ROLE_ENCODE) return "encode";
  return "none";
}
