// `blis observe` as a library (docs/observe.md).

export {
  observe,
  DEFAULT_MAX_CONCURRENCY,
  DEFAULT_TIMEOUT_MS,
  type ObserveOptions,
  type ObserveProgress,
  type ObserveResult,
} from "./observe.js";
export { ObserveClient, parseServerUrl, type ClientOptions } from "./client.js";
export { API_FORMATS, buildBody, buildHeaders, endpointPath, type ApiFormat } from "./requestBody.js";
export { vllmPriority } from "./priority.js";
export { VOCABULARY, promptFromTokens, wordCountFor } from "./vocabulary.js";
export { SseAccumulator, parseJsonBody } from "./sse.js";
export type { PostOutcome, RequestStatus } from "./httpClient.js";
export type { ItlRow } from "./rows.js";
export {
  buildObservedTrace,
  defaultItlPath,
  formatItlCsv,
  rfc3339Utc,
  writeItlCsv,
  writeObservedTrace,
  type TraceMeta,
} from "./output.js";
export { renderObservedMetrics, summarizeObserved, type ObservedMetrics } from "./summary.js";
