// Typed arrays that their owners grow geometrically: a copy into a larger array, the new slots
// zero (or `fill`).

export function grownInt32(a: Int32Array, cap: number): Int32Array<ArrayBuffer> {
  const b = new Int32Array(cap);
  b.set(a);
  return b;
}

export function grownFloat64(a: Float64Array, cap: number, fill = 0): Float64Array<ArrayBuffer> {
  const b = new Float64Array(cap);
  if (fill !== 0) b.fill(fill, a.length);
  b.set(a);
  return b;
}

export function grownUint8(a: Uint8Array, cap: number): Uint8Array<ArrayBuffer> {
  const b = new Uint8Array(cap);
  b.set(a);
  return b;
}
