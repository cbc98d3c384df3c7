/** Invalid user input: reported as one line on stderr, exit status 1. */
export class UserError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UserError";
  }
}

/**
 * Instance construction failure that BLIS reports as a runtime panic (exit status 2):
 * bad coefficient lists, invalid roofline configuration.
 */
export class ConstructionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConstructionError";
  }
}

/** A broken simulator invariant: a bug, exit status 2. */
export class InvariantError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "InvariantError";
  }
}

/** A user plugin misbehaved (threw, wrong shape, non-finite value): exit status 1. */
export class PluginError extends UserError {
  constructor(message: string) {
    super(message);
    this.name = "PluginError";
  }
}
