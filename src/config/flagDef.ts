import type { FlagGroup, FlagType } from "../util/policyRegistry.js";
import type { RunOptions } from "./runOptions.js";

/** A flag of `blis run`; `key` is its run option. */
export interface AnyFlagDef {
  key: string;
  flag: string;
  type: FlagType;
  /** The default as `--help` prints it, derived from the run-option schema ("" = none printed). */
  def: string;
  help: string;
  group: FlagGroup;
  /** The value's name in help ("<path>" by default for repeatable flags). */
  metavar?: string;
}

export interface FlagDef extends AnyFlagDef {
  key: keyof RunOptions;
}

/**
 * A flag as the table writes it: no default, which comes from the schema. `shown` replaces the
 * printed default where BLIS's help spells it differently ("1.0") or describes it in words.
 */
export type FlagSpec = Omit<FlagDef, "def"> & { shown?: string };
