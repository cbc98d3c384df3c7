// Counters of an instance's speculative decoding (docs/speculative.md "Metrics").

/** What one instance proposed, accepted and emitted. */
export class SpecStats {
  /** Verifications (a request verifying proposals in a step: vLLM's "drafts"). */
  drafts = 0;
  /** Proposals made and accepted, summed over drafts. */
  proposed = 0;
  accepted = 0;
  /** Per position i: drafts that proposed a token there, and those whose token i was accepted. */
  readonly proposedAt: Float64Array;
  readonly acceptedAt: Float64Array;
  /** Steps that emitted output tokens, and the output tokens they emitted. */
  outputSteps = 0;
  outputTokens = 0;
  /** Steps where disable_by_batch_size turned speculation off. */
  disabledSteps = 0;

  constructor(k: number) {
    this.proposedAt = new Float64Array(k);
    this.acceptedAt = new Float64Array(k);
  }

  /** One draft of k proposals with a accepted. */
  noteDraft(k: number, a: number): void {
    this.drafts++;
    this.proposed += k;
    this.accepted += a;
    for (let i = 0; i < k; i++) this.proposedAt[i]!++;
    for (let i = 0; i < a; i++) this.acceptedAt[i]!++;
  }

  /** A step emitted `tokens` output tokens. */
  noteStep(tokens: number): void {
    if (tokens === 0) return;
    this.outputSteps++;
    this.outputTokens += tokens;
  }

  /** Adds another instance's counters. */
  addFrom(o: SpecStats): void {
    this.drafts += o.drafts;
    this.proposed += o.proposed;
    this.accepted += o.accepted;
    for (let i = 0; i < this.proposedAt.length; i++) {
      this.proposedAt[i]! += o.proposedAt[i]!;
      this.acceptedAt[i]! += o.acceptedAt[i]!;
    }
    this.outputSteps += o.outputSteps;
    this.outputTokens += o.outputTokens;
    this.disabledSteps += o.disabledSteps;
  }
}
