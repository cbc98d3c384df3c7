import { runOptionsSchema, type RunInput, type RunOptions } from "../config/runOptions.js";
import { UserError } from "../util/errors.js";
import { Logger, parseLogLevel, silentLogger } from "../util/log.js";

export interface ParsedOptions {
  /** Parsed once and frozen: later stages derive their own values instead of writing back. */
  o: Readonly<RunOptions>;
  /** Keys given by the caller (they win over presets, specs and bundles). */
  explicit: Set<string>;
  log: Logger;
}

/** Stage 1: run input → options with defaults, the logger and the model name (steps 1-2). */
export function parseRunInput(input: RunInput, logger: Logger | undefined): ParsedOptions {
  const explicit = new Set(Object.keys(input).filter((k) => (input as Record<string, unknown>)[k] !== undefined));
  const parsed = runOptionsSchema().safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const key = issue.code === "unrecognized_keys" ? issue.keys[0]! : issue.path.join(".");
    throw new UserError(
      `invalid run option ${flagName(key)}: ${issue.code === "unrecognized_keys" ? "unknown option" : issue.message}`,
    );
  }
  const o: RunOptions = { ...parsed.data };
  // The newer vLLM names are aliases of the older flags: one name from here on.
  if (explicit.has("maxNumSeqs")) o.maxNumRunningReqs = o.maxNumSeqs;
  if (explicit.has("maxNumBatchedTokens")) o.maxNumScheduledTokens = o.maxNumBatchedTokens;
  // An empty list given on purpose would silently mean "the defaults".
  for (const key of ["routingScorers", "prefillRoutingScorers", "decodeRoutingScorers"] as const) {
    const v = (input as Record<string, unknown>)[key];
    if (typeof v === "string" && v.trim() === "") {
      throw new UserError(
        `${flagName(key)}: empty list (give "name:weight,..." or leave the flag out for the defaults)`,
      );
    }
  }
  const level = parseLogLevel(o.log);
  if (level === null) throw new UserError(`Invalid log level: ${o.log}`);
  const log = logger ?? (input.log !== undefined ? new Logger(level) : silentLogger);

  // 1-2. Model.
  if (o.model === "") throw new UserError("LLM name not provided (--model). Exiting simulation.");
  o.model = o.model.toLowerCase();
  return { o: Object.freeze(o), explicit, log };
}

/** camelCase option key → its CLI flag. */
export function flagName(key: string): string {
  return "--" + key.replace(/[A-Z]/g, (c) => "-" + c.toLowerCase());
}
