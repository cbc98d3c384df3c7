// The stderr logger of a command, from its --log value.

import { Logger, parseLogLevel } from "../util/log.js";
import { UserError } from "../util/errors.js";
import type { CliIo } from "./io.js";
import { RUN_DEFAULTS } from "../config/runOptions.js";

export function loggerFor(level: string | undefined, io: CliIo): Logger {
  const l = parseLogLevel(level ?? RUN_DEFAULTS.log);
  if (l === null) throw new UserError(`Invalid log level: ${level}`);
  return new Logger(l, io.stderrLine);
}
