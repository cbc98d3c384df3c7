// The prefill/decode disaggregation flags of `blis run` (docs/prefill-decode.md "Flags").
import type { FlagSpec } from "./flagDef.js";

const pool = (role: "prefill" | "decode", what: string): string =>
  `${what} of the ${role} pool${role === "decode" ? " (and shared instances)" : ""}; default: the global setting`;

export const PD_FLAGS: FlagSpec[] = [
  {
    key: "prefillInstances",
    flag: "--prefill-instances",
    type: "int",
    group: "cluster",
    help: "prefill-only instances (the first ones by index); with --decode-instances turns PD disaggregation on",
  },
  {
    key: "decodeInstances",
    flag: "--decode-instances",
    type: "int",
    group: "cluster",
    help: "decode-only instances (after the prefill ones)",
  },
  {
    key: "prefillDecodeInstances",
    flag: "--prefill-decode-instances",
    type: "int",
    group: "cluster",
    help: "shared instances that can both prefill and decode (after the decode ones)",
  },
  {
    key: "encodeInstances",
    flag: "--encode-instances",
    type: "int",
    group: "cluster",
    help: "encode instances for multimodal requests (after the shared ones; a zero-time stage)",
  },
  {
    key: "pdDecider",
    flag: "--pd-decider",
    type: "string",
    group: "cluster",
    help: "which requests are split into prefill and decode: never, always, prefix-threshold",
  },
  {
    key: "encodeDecider",
    flag: "--encode-decider",
    type: "string",
    group: "cluster",
    help: "which requests visit the encode pool: never, always, multimodal",
  },
  {
    key: "pdTransferBandwidth",
    flag: "--pd-transfer-bandwidth",
    type: "float",
    shown: "25.0",
    group: "cluster",
    help: "KV transfer bandwidth from prefill to decode, GB/s",
  },
  {
    key: "pdTransferBaseLatency",
    flag: "--pd-transfer-base-latency",
    type: "float",
    group: "cluster",
    help: "fixed latency of each KV transfer, ms",
  },
  {
    key: "pdTransferContention",
    flag: "--pd-transfer-contention",
    type: "bool",
    group: "cluster",
    help: "concurrent transfers share the bandwidth (each gets bandwidth / active transfers at its start)",
  },
  {
    key: "prefillRoutingScorers",
    flag: "--prefill-routing-scorers",
    type: "string",
    group: "policy",
    help: 'weighted scorers "name:weight,..." for the prefill pool (default: the main routing policy)',
  },
  {
    key: "decodeRoutingScorers",
    flag: "--decode-routing-scorers",
    type: "string",
    group: "policy",
    help: 'weighted scorers "name:weight,..." for the decode pool (default: the main routing policy)',
  },
  { key: "prefillTp", flag: "--prefill-tp", type: "int", group: "cluster", help: pool("prefill", "tensor parallelism") },
  { key: "decodeTp", flag: "--decode-tp", type: "int", group: "cluster", help: pool("decode", "tensor parallelism") },
  { key: "prefillHardware", flag: "--prefill-hardware", type: "string", group: "cluster", help: pool("prefill", "GPU type") },
  { key: "decodeHardware", flag: "--decode-hardware", type: "string", group: "cluster", help: pool("decode", "GPU type") },
  {
    key: "prefillLatencyModel",
    flag: "--prefill-latency-model",
    type: "string",
    group: "cluster",
    help: pool("prefill", "latency backend"),
  },
  { key: "decodeLatencyModel", flag: "--decode-latency-model", type: "string", group: "cluster", help: pool("decode", "latency backend") },
  {
    key: "prefillMaxModelLen",
    flag: "--prefill-max-model-len",
    type: "int64",
    group: "cluster",
    help: pool("prefill", "max-model-len"),
  },
  { key: "decodeMaxModelLen", flag: "--decode-max-model-len", type: "int64", group: "cluster", help: pool("decode", "max-model-len") },
];
