import { grownFloat64, grownInt32, grownUint8 } from "../core/typedArrays.js";

/**
 * What the allocation in progress changed, so that a failure undoes exactly that and nothing the
 * request held before (docs/behavior.md "Prefix lookup, allocation and rollback"). Typed arrays,
 * reused across calls.
 */
export class AllocationUndoLog {
  /**
   * Fresh blocks taken, in order, with the hash each carried before it was taken and where its
   * entry was (kv/privateEntries.ts: owner and position).
   */
  freshCount = 0;
  fresh: Int32Array = new Int32Array(8);
  freshHash: Float64Array = new Float64Array(8);
  freshOwner: Int32Array = new Int32Array(8);
  freshPos: Int32Array = new Int32Array(8);
  /** Cached blocks attached, in order, with their in-use flag before the attach. */
  attachCount = 0;
  attached: Int32Array = new Int32Array(8);
  attachedWasUsed: Uint8Array = new Uint8Array(8);

  clear(): void {
    this.freshCount = 0;
    this.attachCount = 0;
  }

  /** Records a fresh block and the hash it carried, hashes[block] (read here: no boxed double). */
  recordFresh(block: number, hashes: Float64Array, owner: number, pos: number): void {
    const i = this.freshCount++;
    if (i === this.fresh.length) this.growFresh();
    this.fresh[i] = block;
    this.freshHash[i] = hashes[block]!;
    this.freshOwner[i] = owner;
    this.freshPos[i] = pos;
  }

  recordAttach(block: number, wasUsed: number): void {
    const i = this.attachCount++;
    if (i === this.attached.length) this.growAttached();
    this.attached[i] = block;
    this.attachedWasUsed[i] = wasUsed;
  }

  private growFresh(): void {
    const cap = this.fresh.length * 2;
    this.fresh = grownInt32(this.fresh, cap);
    this.freshHash = grownFloat64(this.freshHash, cap);
    this.freshOwner = grownInt32(this.freshOwner, cap);
    this.freshPos = grownInt32(this.freshPos, cap);
  }

  private growAttached(): void {
    const cap = this.attached.length * 2;
    this.attached = grownInt32(this.attached, cap);
    this.attachedWasUsed = grownUint8(this.attachedWasUsed, cap);
  }
}
