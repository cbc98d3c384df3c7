// `blis playground`: a bad --port is a one-line error before anything listens; the server hands
// out the built site's files from 127.0.0.1 and nothing outside it; the command prints its URL.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import http from "node:http";
import path from "node:path";
import { cli } from "../helpers/cli.js";
import { PLAYGROUND_DIR, servePlayground } from "../../src/cli/playgroundCommand.js";
import { ROOT } from "./pageDriver.js";

function rawStatus(port: number, rawPath: string): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: "127.0.0.1", port, path: rawPath }, (res) => {
        res.resume();
        resolve(res.statusCode);
      })
      .once("error", reject);
  });
}

test("a bad --port is the CLI's one-line error, exit 1", async () => {
  for (const port of ["x", "-1", "65536", "8080.5", ""]) {
    const r = await cli(["playground", "--port", port]);
    assert.equal(r.code, 1, port);
    assert.deepEqual(r.stderr, [`error: --port must be an integer from 0 to 65535, got "${port}"`]);
    assert.equal(r.stdout, "");
  }
});

test("the server hands out the site's files and nothing outside it", async () => {
  const server = await servePlayground(PLAYGROUND_DIR, 0);
  try {
    const addr = server.address();
    assert.ok(addr !== null && typeof addr === "object");
    assert.equal(addr.address, "127.0.0.1");
    const base = `http://127.0.0.1:${addr.port}`;
    const index = await fetch(`${base}/?model=x&run=1`);
    assert.equal(index.status, 200);
    assert.match(index.headers.get("content-type") ?? "", /^text\/html/);
    assert.match(await index.text(), /<title>/);
    for (const f of ["playground.js", "worker.js", "data.js", "chart.js"]) {
      const r = await fetch(`${base}/${f}`);
      assert.equal(r.status, 200, f);
      assert.match(r.headers.get("content-type") ?? "", /^text\/javascript/, f);
      await r.arrayBuffer();
    }
    // Raw request paths (fetch would normalize the dot segments away).
    for (const p of ["/../package.json", "/%2e%2e/package.json", "/..%2fpackage.json", "/missing.js", "/%E0%A4%A"]) {
      assert.equal(await rawStatus(addr.port, p), 404, p);
    }
    const post = await fetch(`${base}/index.html`, { method: "POST" });
    assert.equal(post.status, 405);
    await post.arrayBuffer();
    // A taken port is named.
    const again = await cli(["playground", "--port", String(addr.port)]);
    assert.equal(again.code, 1);
    assert.deepEqual(again.stderr, [`error: --port ${addr.port}: address already in use`]);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

test("npx blis playground prints the address it serves and stops on SIGTERM", async () => {
  const child = spawn(
    process.execPath,
    [path.join(ROOT, "dist", "src", "cli", "bin.js"), "playground", "--port", "0"],
    {
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let out = "";
      child.stdout.on("data", (b: Buffer) => {
        out += b.toString();
        const m = /^Playground: (http:\/\/127\.0\.0\.1:\d+\/)\n/.exec(out);
        if (m) resolve(m[1]!);
      });
      child.once("exit", (code) => reject(new Error(`exited ${code}: ${out}`)));
    });
    const r = await fetch(url);
    assert.equal(r.status, 200);
    await r.arrayBuffer();
  } finally {
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    child.kill("SIGTERM");
    assert.equal(await exited, 0);
  }
});
