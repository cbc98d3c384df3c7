// POSIX `node:path` for the browser build: the library joins and resolves paths of the bundled
// data, which the page keeps in an in-memory file system (fs.ts) rooted at "/".

/** The working directory of relative paths in the page (a pasted workload spec is saved here). */
export const CWD = "/playground";

export const sep = "/";
export const delimiter = ":";

export function normalize(p: string): string {
  const abs = p.startsWith("/");
  const out: string[] = [];
  for (const part of p.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") {
      if (out.length > 0 && out[out.length - 1] !== "..") out.pop();
      else if (!abs) out.push("..");
    } else out.push(part);
  }
  const s = (abs ? "/" : "") + out.join("/");
  return s === "" ? "." : s;
}

export function join(...parts: string[]): string {
  return normalize(parts.filter((x) => x !== "").join("/"));
}

export function resolve(...parts: string[]): string {
  let p = CWD;
  for (const x of parts) p = x.startsWith("/") ? x : `${p}/${x}`;
  return normalize(p);
}

export function isAbsolute(p: string): boolean {
  return p.startsWith("/");
}

export function dirname(p: string): string {
  const s = p.length > 1 ? p.replace(/\/+$/, "") : p;
  const i = s.lastIndexOf("/");
  if (i < 0) return ".";
  return i === 0 ? "/" : s.slice(0, i);
}

export function basename(p: string, ext?: string): string {
  const s = p.length > 1 ? p.replace(/\/+$/, "") : p;
  const b = s.slice(s.lastIndexOf("/") + 1);
  return ext !== undefined && b.endsWith(ext) && b !== ext ? b.slice(0, -ext.length) : b;
}

export function extname(p: string): string {
  const b = basename(p);
  const i = b.lastIndexOf(".");
  return i <= 0 ? "" : b.slice(i);
}

export function relative(from: string, to: string): string {
  const a = resolve(from).split("/").filter(Boolean);
  const b = resolve(to).split("/").filter(Boolean);
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return [...a.slice(i).map(() => ".."), ...b.slice(i)].join("/");
}

const path = { sep, delimiter, normalize, join, resolve, isAbsolute, dirname, basename, extname, relative };
export const posix = path;
export default path;
