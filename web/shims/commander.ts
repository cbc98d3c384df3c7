// The one commander export the run flags' value parsers use (src/config/parseFlagValue.ts);
// the page formats the message the way commander does (worker/params.ts).

export class InvalidArgumentError extends Error {
  readonly code = "commander.invalidArgument";
  constructor(message: string) {
    super(message);
    this.name = "InvalidArgumentError";
  }
}
