// The `--queue` URL of `blis sweep`, `blis optimize` and `blis worker`: redis://[[USER]:PASSWORD@]HOST:PORT[/DB]
// (rediss:// for TLS), checked before anything starts.

import { UserError } from "../util/errors.js";

export interface QueueUrl {
  /** The URL without its password, for messages. */
  display: string;
  host: string;
  port: number;
  db: number;
  username: string;
  password: string;
  tls: boolean;
}

const USAGE = "expected redis://HOST:PORT[/DB]";

/** Parses a Redis URL; a malformed one is a UserError naming `flag`. */
export function parseQueueUrl(text: string, flag = "--queue"): QueueUrl {
  const bad = (why: string): UserError => new UserError(`${flag} ${JSON.stringify(text)}: ${why}; ${USAGE}`);
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    throw bad("not a URL");
  }
  if (u.protocol !== "redis:" && u.protocol !== "rediss:")
    throw bad(`the scheme is ${JSON.stringify(u.protocol.replace(/:$/, ""))}, not redis`);
  if (u.hostname === "") throw bad("no host");
  if (u.search !== "" || u.hash !== "") throw bad("no query or fragment allowed");
  const port = u.port === "" ? 6379 : Number(u.port);
  const dbText = u.pathname.replace(/^\//, "");
  if (dbText !== "" && !/^\d{1,5}$/.test(dbText)) throw bad(`the database ${JSON.stringify(dbText)} is not a number`);
  const db = dbText === "" ? 0 : Number(dbText);
  const host = u.hostname.replace(/^\[(.*)\]$/, "$1");
  const display = `${u.protocol}//${u.host}${dbText === "" ? "" : `/${db}`}`;
  return {
    display,
    host,
    port,
    db,
    username: decodeURIComponent(u.username),
    password: decodeURIComponent(u.password),
    tls: u.protocol === "rediss:",
  };
}
