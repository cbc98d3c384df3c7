// Node globals the library touches, for the browser build (injected by esbuild): `process` for
// the wall-clock timer, the environment and the log sink, and `Buffer` for UTF-8 bytes.

const enc = new TextEncoder();

export const process = {
  env: {} as Record<string, string | undefined>,
  pid: 1,
  platform: "browser",
  cwd: (): string => "/playground",
  hrtime: { bigint: (): bigint => BigInt(Math.round(performance.now() * 1e6)) },
  // Log lines go to the console; the page shows errors from the worker's messages instead.
  stderr: { write: (s: string): boolean => (console.warn(s.replace(/\n$/, "")), true) },
  stdout: { write: (s: string): boolean => (console.log(s.replace(/\n$/, "")), true) },
};

const dec = new TextDecoder();

/** Bytes that decode as UTF-8 on toString(), as a Node Buffer does (the guarded file reader's reads). */
class ShimBuffer extends Uint8Array {
  override toString(_enc?: string): string {
    return dec.decode(this);
  }
}

export const Buffer = {
  allocUnsafe: (n: number): ShimBuffer => new ShimBuffer(n),
  concat(list: readonly Uint8Array[], total?: number): ShimBuffer {
    const out = new ShimBuffer(total ?? list.reduce((a, b) => a + b.length, 0));
    let at = 0;
    for (const b of list) {
      out.set(b.subarray(0, Math.min(b.length, out.length - at)), at);
      at += b.length;
      if (at >= out.length) break;
    }
    return out;
  },
  from: (s: string, _enc?: string): Uint8Array => enc.encode(s),
  byteLength: (s: string): number => enc.encode(s).length,
  compare(a: Uint8Array, b: Uint8Array): number {
    const n = Math.min(a.length, b.length);
    for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
    return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
  },
};
