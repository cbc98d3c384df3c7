import type { InstanceConfig } from "./instanceConfig.js";
import type { Request } from "../core/request.js";

/**
 * Why the request can never be served by an instance with `totalBlocks` GPU KV blocks, or null
 * when it can (docs/behavior.md "Enqueue and unservable requests").
 */
export function unservableReason(req: Request, cfg: InstanceConfig, totalBlocks: number): string | null {
  const mml = cfg.maxModelLen;
  if (mml > 0 && (req.inputLen >= mml || req.inputLen + req.outputLen > mml)) {
    return `prompt ${req.inputLen} + output ${req.outputLen} tokens exceed max-model-len ${mml}`;
  }
  const needed = blocksToComplete(req.inputLen, req.outputLen, cfg.blockSize);
  if (needed > totalBlocks) {
    return `it needs ${needed} KV blocks to complete but the instance has ${totalBlocks}`;
  }
  return null;
}

/**
 * KV blocks a request must hold at once to complete: its prompt, plus the decode positions up to
 * its last decode step (the completion-time token may fail to allocate; docs/behavior.md
 * "The step", item 8). BLIS checks the prompt alone (docs/behavior.md#q17), so a request whose
 * output cannot fit preempts itself forever; here it is dropped as unservable instead. Empty
 * prompts are unservable too.
 */
export function blocksToComplete(inputLen: number, outputLen: number, blockSize: number): number {
  // An empty prompt never reaches the completion condition (BLIS loops on it forever); vLLM
  // rejects empty prompts, so it is unservable.
  if (inputLen <= 0) return Infinity;
  const positions = outputLen > 1 ? inputLen + outputLen - 1 : inputLen;
  return Math.ceil(positions / blockSize);
}
