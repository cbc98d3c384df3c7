// One trace row per recorded request (docs/observe.md "What is recorded"; the columns are
// those of docs/observe.md "What is recorded").

import { emptyTraceRecord, type TraceRecord, type WorkloadRequest } from "../workload/index.js";
import type { PostOutcome } from "./httpClient.js";
import { vllmPriority } from "./priority.js";

/** One chunk time of the ITL CSV. */
export interface ItlRow {
  requestId: number;
  /** 0 = the first chunk. */
  chunkIndex: number;
  /** Absolute Unix-epoch µs. */
  timestampUs: number;
}

/**
 * The row of dispatch index `index`: planned shape and labels from the workload, times and
 * server counts from the response.
 */
export function traceRowFor(
  req: WorkloadRequest,
  index: number,
  streaming: boolean,
  xRequestId: string,
  o: PostOutcome,
): TraceRecord {
  const row = emptyTraceRecord();
  row.request_id = index;
  row.tenant_id = req.tenantId;
  row.slo_class = req.sloClass;
  row.vllm_priority = req.sloClass !== "" ? vllmPriority(req.sloClass) : 0;
  row.session_id = req.sessionId;
  row.round_index = req.roundIndex;
  row.streaming = streaming;
  row.input_tokens = req.inputLen;
  row.output_tokens = o.completionTokens;
  row.text_tokens = req.textTokens;
  row.image_tokens = req.imageTokens;
  row.audio_tokens = req.audioTokens;
  row.video_tokens = req.videoTokens;
  row.reason_ratio = req.reasonRatio;
  row.model = req.model;
  row.server_input_tokens = o.promptTokens;
  row.arrival_time_us = Math.round(req.arrival);
  row.send_time_us = o.sendTimeUs;
  row.first_chunk_time_us = o.firstChunkTimeUs;
  row.last_chunk_time_us = o.lastChunkTimeUs;
  row.num_chunks = o.numChunks;
  row.status = o.status;
  row.error_message = o.errorMessage;
  row.finish_reason = o.finishReason;
  row.x_request_id = xRequestId;
  return row;
}

export function itlRowsFor(index: number, o: PostOutcome): ItlRow[] {
  return o.chunkTimesUs.map((t, i) => ({ requestId: index, chunkIndex: i, timestampUs: t }));
}
