import { UserError } from "../util/errors.js";

/** An invalid search-space file (or a space that does not match the output directory): exit status 1. */
export class SpaceError extends UserError {
  constructor(message: string) {
    super(message);
    this.name = "SpaceError";
  }
}

/** The baseline run gave no value a constraint needs: nothing else has run yet. */
export class BaselineError extends SpaceError {
  constructor(message: string) {
    super(message);
    this.name = "BaselineError";
  }
}
