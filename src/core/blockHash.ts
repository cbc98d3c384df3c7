// The hash value of "no block": core, because a request keeps the hash of its last full block
// (kv/hash.ts computes the chain).

/** No previous block (the first block of a sequence), or a block without content hash. */
export const NO_HASH = -1;
