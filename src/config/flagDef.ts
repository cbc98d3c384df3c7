import type { FlagGroup, FlagType } from "../util/policyRegistry.js";
import type { RunOptions } from "./runOptions.js";

/** A flag of `blis run`; `key` is its run option. */
export interface AnyFlagDef {
  key: string;
  flag: string;
  type: FlagType;
  def: string;
  help: string;
  group: FlagGroup;
  /** The value's name in help ("<path>" by default for repeatable flags). */
  metavar?: string;
}

export interface FlagDef extends AnyFlagDef {
  key: keyof RunOptions;
}
