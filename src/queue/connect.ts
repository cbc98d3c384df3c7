// Connections to the Redis server behind `--queue`: BullMQ's connection options, and a probe that
// fails fast (a bounded connect timeout, no retries) with one line naming the URL instead of the
// endless reconnecting a queue client would do.

import type { ConnectionOptions } from "bullmq";
import { Redis } from "ioredis";
import { UserError } from "../util/errors.js";
import type { QueueUrl } from "./url.js";

/** How long the probe waits for the server (connect and PING). */
export const CONNECT_TIMEOUT_MS = 3000;

/** Options for BullMQ's connections (workers need maxRetriesPerRequest: null for blocking commands). */
export function connectionOptions(url: QueueUrl): ConnectionOptions {
  return { ...endpoint(url), maxRetriesPerRequest: null };
}

/** Where the server is and how to log in, shared by BullMQ's connections and the probe. */
function endpoint(url: QueueUrl): {
  host: string;
  port: number;
  db: number;
  username?: string;
  password?: string;
  tls?: object;
} {
  return {
    host: url.host,
    port: url.port,
    db: url.db,
    ...(url.username !== "" ? { username: url.username } : {}),
    ...(url.password !== "" ? { password: url.password } : {}),
    ...(url.tls ? { tls: {} } : {}),
  };
}

/** Connects once and sends PING; a UserError naming the URL when that does not work within the timeout. */
export async function probeRedis(url: QueueUrl, timeoutMs = CONNECT_TIMEOUT_MS): Promise<void> {
  const client = new Redis({
    ...endpoint(url),
    lazyConnect: true,
    connectTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  let lastError = "";
  client.on("error", (e: Error) => {
    lastError = errorText(e);
  });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs / 1000} s`)), timeoutMs);
  });
  try {
    await Promise.race([client.connect().then(() => client.ping()), timeout]);
  } catch (e) {
    const why = lastError !== "" ? lastError : errorText(e);
    throw new UserError(`--queue ${url.display}: cannot reach Redis (${why})`);
  } finally {
    clearTimeout(timer);
    client.disconnect();
  }
}

function errorText(e: unknown): string {
  // ioredis's parser meets a non-Redis answer (an HTTP proxy, another service on the port).
  if (e instanceof Error && /Unknown RESP type|Protocol error/i.test(e.message))
    return "the server does not speak the Redis protocol";
  const code = (e as NodeJS.ErrnoException).code;
  const msg = e instanceof Error ? e.message.split("\n")[0]! : String(e);
  return code !== undefined && !msg.includes(code) ? `${code}: ${msg}` : msg;
}
