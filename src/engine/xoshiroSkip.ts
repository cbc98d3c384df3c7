// Moving a xoshiro128** stream past many draws without making them.
//
// One step of the generator maps its 128 state bits linearly over GF(2) (xors, a shift and a
// rotation), so n steps are the matrix T^n, the product of the matrices T^(2^k) for the set bits of
// n (they commute). Each such matrix is kept as lookup tables, one per 4-bit slice of the state
// (32 slices × 16 values × 4 words, 8 KB): applying it is 32 lookups and 128 xors, where stepping
// costs six operations per draw. Workload generation skips every request's prompt and output
// (about a thousand draws per request in the default workload). The tables are built on first
// use, for the powers used, each from the one before it.

/** Skips shorter than this are stepped through. */
export const JUMP_MIN = 256;
/** The low LOW_BITS bits of a long skip are stepped through, the rest jumped over. */
const LOW_BITS = 6;
const LOW = 1 << LOW_BITS;
const SLICES = 32;

/** tables[k]: the slice tables of T^(2^k); entry (16·slice + nibble)·4 holds the 4 image words. */
const tables: Int32Array[] = [];

/** Moves the state words state[at .. at + 4) past `count` draws, one step at a time. */
export function stepState(state: Int32Array, at: number, count: number): void {
  let a = state[at]!;
  let b = state[at + 1]!;
  let c = state[at + 2]!;
  let d = state[at + 3]!;
  for (let i = 0; i < count; i++) {
    const t2 = c ^ a;
    const t3 = d ^ b;
    a ^= t3;
    c = t2 ^ (b << 9);
    b ^= t2;
    d = (t3 << 11) | (t3 >>> 21);
  }
  state[at] = a;
  state[at + 1] = b;
  state[at + 2] = c;
  state[at + 3] = d;
}

/** Moves the state words state[at .. at + 4) past `count` draws (a non-negative integer). */
export function skipState(state: Int32Array, at: number, count: number): void {
  if (count < JUMP_MIN) {
    stepState(state, at, count);
    return;
  }
  const low = count % LOW;
  stepState(state, at, low);
  let rest = (count - low) / LOW;
  for (let k = LOW_BITS; rest > 0; k++) {
    if (rest % 2 === 1) applyTable(power(k), state, at);
    rest = Math.floor(rest / 2);
  }
}

/** Replaces state[at .. at + 4) by its image under the matrix whose slice tables are `t`. */
function applyTable(t: Int32Array, state: Int32Array, at: number): void {
  let o0 = 0;
  let o1 = 0;
  let o2 = 0;
  let o3 = 0;
  for (let w = 0; w < 4; w++) {
    const word = state[at + w]!;
    for (let n = 0; n < 8; n++) {
      const e = (((w * 8 + n) << 4) | ((word >>> (n * 4)) & 15)) << 2;
      o0 ^= t[e]!;
      o1 ^= t[e + 1]!;
      o2 ^= t[e + 2]!;
      o3 ^= t[e + 3]!;
    }
  }
  state[at] = o0;
  state[at + 1] = o1;
  state[at + 2] = o2;
  state[at + 3] = o3;
}

/** Slice tables of T^(2^k), built (with those of the lower powers) on first use. */
function power(k: number): Int32Array {
  while (tables.length <= k) tables.push(tablesFromColumns(nextColumns(tables.length)));
  return tables[k]!;
}

/** The 128 columns (images of the unit states, 4 words each) of T^(2^k), from T^(2^(k-1)). */
function nextColumns(k: number): Int32Array {
  const cols = new Int32Array(128 * 4);
  for (let j = 0; j < 128; j++) {
    cols[j * 4 + (j >>> 5)] = 1 << (j & 31);
    if (k === 0) stepState(cols, j * 4, 1);
    else {
      // T^(2^k) e_j = T^(2^(k-1)) applied twice.
      applyTable(tables[k - 1]!, cols, j * 4);
      applyTable(tables[k - 1]!, cols, j * 4);
    }
  }
  return cols;
}

/** Slice tables from columns: entry (slice, v) is the xor of the columns of v's set bits. */
function tablesFromColumns(cols: Int32Array): Int32Array {
  const t = new Int32Array(SLICES * 16 * 4);
  for (let s = 0; s < SLICES; s++) {
    for (let v = 1; v < 16; v++) {
      const low = v & -v;
      const bit = 31 - Math.clz32(low);
      const e = ((s << 4) | v) << 2;
      const rest = ((s << 4) | (v ^ low)) << 2;
      const col = (s * 4 + bit) * 4;
      for (let w = 0; w < 4; w++) t[e + w] = t[rest + w]! ^ cols[col + w]!;
    }
  }
  return t;
}
