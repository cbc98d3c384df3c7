// Remembered decode times by batch size and context: decode attention (kernels/attention.ts) and
// the kernel time of a step of decodes only (kernels/kernelModel.ts). A replay takes millions of
// steps, and each asks for its batch and context: a logarithm and an exponential per step, and a
// few table reads. The questions repeat: a batch of one decoding request asks for contexts one
// token apart, and every request of similar length asks for the same ones again. Each small
// integer batch size gets a direct-mapped table indexed by the context times a scale, so the
// contexts of one decode, consecutive, never push each other out.

/** Batch sizes 1 .. MAX_BATCH are remembered; larger batches are rare in the steps that repeat. */
const MAX_BATCH = 8;
/** Slots per batch size (a power of two). */
const SLOTS = 8192;
const EMPTY_KEYS = new Float64Array(0);

export class ContextMemo {
  /** Per batch size: the context kept in each slot (NaN: none, never equal to a context). */
  private readonly contexts: Float64Array[] = new Array<Float64Array>(MAX_BATCH + 1).fill(EMPTY_KEYS);
  private readonly values: Float64Array[] = new Array<Float64Array>(MAX_BATCH + 1).fill(EMPTY_KEYS);

  /**
   * `scale`: slots per unit of context; 2 keeps the half-token contexts of a batch of two apart, 1
   * suits integer contexts (a sum of positions) spread over more than 4,096 values.
   */
  constructor(private readonly scale: number) {}

  /** The slot for (batch, context), or -1 when the pair is not one this memo keeps. */
  slot(batch: number, context: number): number {
    if (!(batch >= 1 && batch <= MAX_BATCH && (batch | 0) === batch && context >= 0)) return -1;
    return ((context * this.scale) | 0) & (SLOTS - 1);
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
