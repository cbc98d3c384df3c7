// Worker thread of the CLI fuzz test: runs one `main(argv, io)` per message with stdout and stderr
// captured, including what bypasses the io (direct writes, console) and errors that escape the
// command (rejections and exceptions nobody handled). Started by runner.ts; when loaded as a
// plain module (the test runner loads every file under test/) it does nothing.

import { parentPort } from "node:worker_threads";

export interface CaseRequest {
  id: number;
  argv: string[];
}

export interface CaseReply {
  id: number;
  /** The exit status main returned; null when main itself threw. */
  code: number | null;
  stdout: string;
  stderr: string[];
  /** Errors that escaped main: thrown by it, or left unhandled while the case ran. */
  escaped: string[];
}

interface Capture {
  stdout: string;
  stderr: string[];
  escaped: string[];
}

function describe(e: unknown): string {
  return e instanceof Error ? `${e.name}: ${e.message.split("\n")[0] ?? ""}` : String(e);
}

/** Routes every way of writing to stdout or stderr into the current capture. */
function installCapture(current: () => Capture | null): void {
  const toStdout = (s: string): void => {
    const c = current();
    if (c !== null) c.stdout += s;
  };
  const toStderr = (s: string): void => {
    const c = current();
    if (c !== null) c.stderr.push(...s.replace(/\n$/, "").split("\n"));
  };
  const write =
    (to: (s: string) => void) =>
    (chunk: unknown, ...rest: unknown[]): boolean => {
      to(typeof chunk === "string" ? chunk : Buffer.from(chunk as Uint8Array).toString("utf8"));
      const cb = rest.find((r) => typeof r === "function") as (() => void) | undefined;
      cb?.();
      return true;
    };
  process.stdout.write = write(toStdout) as typeof process.stdout.write;
  process.stderr.write = write(toStderr) as typeof process.stderr.write;
  const line =
    (to: (s: string) => void) =>
    (...args: unknown[]) =>
      to(args.map(String).join(" ") + "\n");
  console.log = line(toStdout);
  console.info = line(toStdout);
  console.error = line(toStderr);
  console.warn = line(toStderr);
  console.debug = line(toStderr);
  const escaped = (what: string) => (e: unknown) => current()?.escaped.push(`${what}: ${describe(e)}`);
  process.on("unhandledRejection", escaped("unhandled rejection"));
  process.on("uncaughtException", escaped("uncaught exception"));
}

async function serve(port: NonNullable<typeof parentPort>): Promise<void> {
  // The fuzzer never reaches the network: a model config download fails at once, the same way
  // everywhere, instead of depending on the machine (and saving into the bundled data).
  globalThis.fetch = (() =>
    Promise.reject(new TypeError("fetch failed: network disabled in the fuzz test"))) as typeof fetch;
  const { main } = await import("../../src/cli/main.js");
  let capture: Capture | null = null;
  installCapture(() => capture);
  port.on("message", (req: CaseRequest) => {
    const c: Capture = { stdout: "", stderr: [], escaped: [] };
    capture = c;
    const io = { stdout: (s: string) => void (c.stdout += s), stderrLine: (l: string) => void c.stderr.push(l) };
    main(req.argv, io).then(
      (code) => reply(code),
      (e: unknown) => {
        c.escaped.push(`main threw: ${describe(e)}`);
        reply(null);
      },
    );
    function reply(code: number | null): void {
      // Rejections of promises the command dropped are reported on the next turns of the loop.
      setImmediate(() => {
        capture = null;
        const msg: CaseReply = { id: req.id, code, stdout: c.stdout, stderr: c.stderr, escaped: c.escaped };
        port.postMessage(msg);
      });
    }
  });
  port.postMessage({ ready: true });
}

if (parentPort !== null) await serve(parentPort);
