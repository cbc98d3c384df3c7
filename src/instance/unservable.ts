import type { InstanceConfig } from "./instanceConfig.js";
import type { Request } from "../core/request.js";
import type { Logger } from "../util/log.js";

/** Why a request can never be served: which limit it breaks, and the details in words. */
export interface Unservable {
  kind: "max-model-len" | "kv-blocks";
  /** e.g. "prompt 2160 + output 751 tokens exceed max-model-len 800". */
  text: string;
}

/**
 * Why the request can never be served by an instance with `totalBlocks` GPU KV blocks, or null
 * when it can (docs/behavior.md "Enqueue and unservable requests").
 */
export function unservableCheck(req: Request, cfg: InstanceConfig, totalBlocks: number): Unservable | null {
  const mml = cfg.maxModelLen;
  if (mml > 0 && req.inputLen >= mml) {
    return {
      kind: "max-model-len",
      text: `prompt ${req.inputLen} tokens leave no room for output under max-model-len ${mml}`,
    };
  }
  if (mml > 0 && req.inputLen + req.outputLen > mml) {
    return {
      kind: "max-model-len",
      text: `prompt ${req.inputLen} + output ${req.outputLen} tokens exceed max-model-len ${mml}`,
    };
  }
  const needed = blocksToComplete(req.inputLen, req.outputLen, cfg.blockSize);
  if (needed > totalBlocks) {
    const text =
      req.inputLen <= 0
        ? "its prompt is empty"
        : `it needs ${needed} KV blocks to complete but the instance has ${totalBlocks}`;
    return { kind: "kv-blocks", text };
  }
  return null;
}

/** The reason text of unservableCheck, or null when the request can be served. */
export function unservableReason(req: Request, cfg: InstanceConfig, totalBlocks: number): string | null {
  return unservableCheck(req, cfg, totalBlocks)?.text ?? null;
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

/** How many requests broke one limit, and the first of them on one instance. */
export interface UnservableGroup {
  count: number;
  firstId: string;
  firstText: string;
}

/**
 * The requests one instance dropped as unservable, by limit. Each drop is a debug line; the run
 * summarizes them in one warning (docs/behavior.md "Enqueue and unservable requests"), since a
 * misconfigured run would otherwise print one line per request.
 */
export class UnservableTally {
  count = 0;
  readonly groups = new Map<Unservable["kind"], UnservableGroup>();

  note(id: string, why: Unservable, log: Logger): void {
    this.count++;
    const g = this.groups.get(why.kind);
    if (g === undefined) this.groups.set(why.kind, { count: 1, firstId: id, firstText: why.text });
    else g.count++;
    if (log.enabled("debug")) log.debug(`dropping request ${id} as unservable: ${why.text}`);
  }
}

/**
 * The dropped requests of a run in one clause per limit, e.g. "12 exceed the max-model-len (e.g.
 * request_0: prompt 2160 + output 751 tokens exceed max-model-len 800)". The example is the first
 * drop of the lowest-indexed instance, so the text is deterministic.
 */
export function describeUnservable(tallies: readonly UnservableTally[]): string {
  const merged = new Map<Unservable["kind"], UnservableGroup>();
  for (const t of tallies) {
    for (const [kind, g] of t.groups) {
      const m = merged.get(kind);
      if (m === undefined) merged.set(kind, { ...g });
      else m.count += g.count;
    }
  }
  const parts: string[] = [];
  const mml = merged.get("max-model-len");
  if (mml !== undefined) parts.push(`${mml.count} exceed the max-model-len (e.g. ${mml.firstId}: ${mml.firstText})`);
  const kv = merged.get("kv-blocks");
  if (kv !== undefined)
    parts.push(`${kv.count} do not fit in an instance's KV cache (e.g. ${kv.firstId}: ${kv.firstText})`);
  return parts.join("; ");
}
