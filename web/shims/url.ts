// `node:url` for the browser build: file URLs of the virtual package root (see globals.ts).

export function fileURLToPath(u: string | URL): string {
  const s = typeof u === "string" ? u : u.href;
  if (!s.startsWith("file://")) throw new TypeError(`The URL must be of scheme file: ${s}`);
  return decodeURIComponent(s.slice("file://".length));
}

export function pathToFileURL(p: string): URL {
  return new URL("file://" + encodeURI(p));
}

export default { fileURLToPath, pathToFileURL };
