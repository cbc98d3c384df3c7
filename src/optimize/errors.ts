import { UserError } from "../util/errors.js";

/** An invalid search-space file (or a space that does not match the output directory): exit status 1. */
export class SpaceError extends UserError {
  constructor(message: string) {
    super(message);
    this.name = "SpaceError";
  }
}
