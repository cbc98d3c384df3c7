// The run options of prefill/decode disaggregation (docs/prefill-decode.md "Flags"). Every default
// keeps PD off, so a run without these options is the co-located cluster.
import { z } from "zod";
import { anyNumber } from "../util/policyRegistry.js";

export const pdOptionsShape = {
  prefillInstances: z.number().int().default(0),
  decodeInstances: z.number().int().default(0),
  prefillDecodeInstances: z.number().int().default(0),
  encodeInstances: z.number().int().default(0),
  pdDecider: z.string().default("never"),
  encodeDecider: z.string().default("never"),
  /** GB/s. */
  pdTransferBandwidth: anyNumber.default(25),
  /** Milliseconds. */
  pdTransferBaseLatency: anyNumber.default(0.05),
  pdTransferContention: z.boolean().default(false),
  prefillRoutingScorers: z.string().default(""),
  decodeRoutingScorers: z.string().default(""),
  /** 0 = --tp. */
  prefillTp: z.number().int().default(0),
  decodeTp: z.number().int().default(0),
  prefillHardware: z.string().default(""),
  decodeHardware: z.string().default(""),
  prefillLatencyModel: z.string().default(""),
  decodeLatencyModel: z.string().default(""),
  prefillMaxModelLen: z.number().int().default(0),
  decodeMaxModelLen: z.number().int().default(0),
};

/** The per-pool override options, in the order checks and warnings name them. */
export const POOL_OVERRIDE_KEYS = [
  "prefillTp",
  "decodeTp",
  "prefillHardware",
  "decodeHardware",
  "prefillLatencyModel",
  "decodeLatencyModel",
  "prefillMaxModelLen",
  "decodeMaxModelLen",
] as const;
