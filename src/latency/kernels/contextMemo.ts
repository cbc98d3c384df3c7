// Remembered decode attention times by batch size and context (kernels/attention.ts). A replay
// takes millions of steps, and each asks the decode surface for its batch and mean context: a
// logarithm and an exponential per step. The questions repeat: a batch of one decoding request
// asks for contexts one token apart, and every request of similar length asks for the same ones
// again. Each small integer batch size gets a direct-mapped table indexed by twice the context, so
// the contexts of one decode, consecutive, never push each other out.

/** Batch sizes 1 .. MAX_BATCH are remembered; larger batches are rare in the steps that repeat. */
const MAX_BATCH = 8;
/** Slots per batch size (a power of two): two per token of a 4,096-token window. */
const SLOTS = 8192;
const EMPTY_KEYS = new Float64Array(0);

export class ContextMemo {
  /** Per batch size: the context kept in each slot (NaN: none, never equal to a context). */
  private readonly contexts: Float64Array[] = new Array<Float64Array>(MAX_BATCH + 1).fill(EMPTY_KEYS);
  private readonly values: Float64Array[] = new Array<Float64Array>(MAX_BATCH + 1).fill(EMPTY_KEYS);

  /** The slot for (batch, context), or -1 when the pair is not one this memo keeps. */
  slot(batch: number, context: number): number {
    if (!(batch >= 1 && batch <= MAX_BATCH && (batch | 0) === batch && context >= 0)) return -1;
    return ((context * 2) | 0) & (SLOTS - 1);
  }

  /** Whether slot s (from slot()) of `batch` holds `context`. */
  has(batch: number, s: number, context: number): boolean {
    return this.contexts[batch]![s] === context;
  }

  /** The value kept in slot s of `batch` (after has() said yes). */
  value(batch: number, s: number): number {
    return this.values[batch]![s]!;
  }

  /** Keeps `value` for (batch, context) in slot s (from slot()). */
  keep(batch: number, s: number, context: number, value: number): void {
    let keys = this.contexts[batch]!;
    if (keys.length === 0) {
      keys = this.contexts[batch] = new Float64Array(SLOTS).fill(NaN);
      this.values[batch] = new Float64Array(SLOTS);
    }
    keys[s] = context;
    this.values[batch]![s] = value;
  }
}
