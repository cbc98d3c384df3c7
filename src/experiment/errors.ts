/**
 * An invalid sweep plan (or a plan that does not match the output directory): one line naming the
 * item, exit status 2 (README.md "Sweeps: `blis sweep`").
 */
export class PlanError extends Error {
  readonly exitCode = 2;
  constructor(message: string) {
    super(message);
    this.name = "PlanError";
  }
}
