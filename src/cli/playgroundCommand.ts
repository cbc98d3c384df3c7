// `blis playground`: serves the browser playground (dist-web/, written by `npm run build:web`)
// on 127.0.0.1 and prints its address. The page is static: it runs the simulator in the
// browser, so the server only hands out files.

import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { spawnSync } from "node:child_process";
import type { Command } from "commander";
import type { CliIo } from "./io.js";
import { PACKAGE_ROOT } from "../util/paths.js";
import { UserError } from "../util/errors.js";
import { DATA_FILE_LIMIT, readInputBytes } from "../util/inputFile.js";
import { watchParent } from "../util/parentWatch.js";

export const PLAYGROUND_DIR = path.join(PACKAGE_ROOT, "dist-web");

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".png": "image/png",
};

function parsePort(text: string): number {
  const n = /^\d+$/.test(text.trim()) ? Number(text.trim()) : NaN;
  if (!Number.isInteger(n) || n > 65535)
    throw new UserError(`--port must be an integer from 0 to 65535, got "${text}"`);
  return n;
}

/** Builds the site when it is missing (a source checkout without `npm run build:web`). */
function ensureBuilt(dir: string, io: CliIo): void {
  if (fs.existsSync(path.join(dir, "index.html"))) return;
  const script = path.join(PACKAGE_ROOT, "scripts", "buildWeb.mjs");
  if (dir === PLAYGROUND_DIR && fs.existsSync(script) && fs.existsSync(path.join(PACKAGE_ROOT, "web"))) {
    io.stderrLine("building the playground (npm run build:web)...");
    const r = spawnSync(process.execPath, [script], {
      cwd: PACKAGE_ROOT,
      stdio: ["ignore", "ignore", "pipe"],
      encoding: "utf8",
    });
    if (r.status === 0 && fs.existsSync(path.join(dir, "index.html"))) return;
  }
  throw new UserError(`the playground is not built: ${dir} has no index.html (run npm run build:web)`);
}

/** The file a request path names inside `dir`, or null (outside it, or not a file). */
function fileFor(dir: string, urlPath: string): string | null {
  let rel: string;
  try {
    rel = decodeURIComponent(urlPath.split("?")[0]!);
  } catch {
    return null;
  }
  if (rel.endsWith("/")) rel += "index.html";
  const file = path.resolve(dir, "." + path.posix.normalize(rel));
  if (!file.startsWith(path.resolve(dir) + path.sep)) return null;
  return fs.existsSync(file) && fs.statSync(file).isFile() ? file : null;
}

/** Serves `dir` on 127.0.0.1:`port` (0 = any free port); resolves with the server once it listens. */
export function servePlayground(dir: string, port: number): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    const file = req.method === "GET" || req.method === "HEAD" ? fileFor(dir, req.url ?? "/") : null;
    let body: Buffer | null = null;
    try {
      if (file !== null) body = readInputBytes(file, DATA_FILE_LIMIT);
    } catch {
      body = null;
    }
    if (file === null || body === null) {
      res
        .writeHead(req.method === "GET" || req.method === "HEAD" ? 404 : 405, { "content-type": "text/plain" })
        .end("not found\n");
      return;
    }
    const type = TYPES[path.extname(file)] ?? "application/octet-stream";
    res.writeHead(200, { "content-type": type, "cache-control": "no-cache", "x-content-type-options": "nosniff" });
    if (req.method === "HEAD") res.end();
    else res.end(body);
  });
  return new Promise((resolve, reject) => {
    server.once("error", (e: NodeJS.ErrnoException) => {
      const why =
        e.code === "EADDRINUSE" ? "address already in use" : e.code === "EACCES" ? "permission denied" : e.message;
      reject(new UserError(`--port ${port}: ${why}`));
    });
    server.listen(port, "127.0.0.1", () => resolve(server));
  });
}

/** Adds `blis playground`. */
export function registerPlaygroundCommand(program: Command, io: CliIo): void {
  program
    .command("playground")
    .description("serve the browser playground on 127.0.0.1 and print its address (the simulator runs in the page)")
    .option("--port <port>", "port to listen on (0 = any free port)", "8080")
    .addHelpText(
      "after",
      "\nThe site is static (dist-web/, built by npm run build:web); its index.html also works opened as a file.",
    )
    .action(async (opts: { port: string }) => {
      const port = parsePort(opts.port);
      ensureBuilt(PLAYGROUND_DIR, io);
      const server = await servePlayground(PLAYGROUND_DIR, port);
      const addr = server.address();
      const actual = addr !== null && typeof addr === "object" ? addr.port : port;
      io.stdout(`Playground: http://127.0.0.1:${actual}/\n`);
      io.stderrLine("serving until interrupted (Ctrl-C)");
      await new Promise<void>((resolve) => {
        server.once("close", resolve);
        const stop = (): void => {
          unwatch();
          server.close();
          server.closeAllConnections();
        };
        process.once("SIGINT", stop);
        process.once("SIGTERM", stop);
        // Killed with the npx or shell that started it, the server goes too.
        const unwatch = watchParent(() => {
          io.stderrLine("playground: the process that started it ended; stopping");
          stop();
        });
      });
    });
}
