import { InvalidArgumentError } from "commander";
import { parseFloatList, parseGoFloat, parseGoInt } from "../util/parse.js";
import type { FlagType } from "./runFlags.js";

const INT64_MAX = 9223372036854775807n;
const SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** Parses one flag's text into its typed value; the error text ends up after the flag name. */
export function flagParser(type: FlagType, flag: string): (text: string, prev: unknown) => unknown {
  switch (type) {
    case "int":
    case "int64":
      return (text) => {
        const v = parseGoInt(text.trim());
        if (v === null) throw new InvalidArgumentError(`${JSON.stringify(text)} is not an integer.`);
        if (flag === "--horizon") {
          if (v === INT64_MAX) return Infinity;
          return v > SAFE ? Number.MAX_SAFE_INTEGER : Number(v);
        }
        if (flag === "--seed") return v > SAFE || v < -SAFE ? v : Number(v);
        if (v > SAFE || v < -SAFE) throw new InvalidArgumentError(`${text} is out of range.`);
        return Number(v);
      };
    case "float":
      return (text) => {
        const v = parseGoFloat(text.trim());
        if (v === null) throw new InvalidArgumentError(`${JSON.stringify(text)} is not a number.`);
        return v;
      };
    case "floats":
      return (text) => {
        const v = parseFloatList(text);
        if (v === null) throw new InvalidArgumentError(`${JSON.stringify(text)} is not a comma-separated list of numbers.`);
        return v;
      };
    case "bool":
      return (text) => {
        const t = text.toLowerCase();
        if (["1", "t", "true"].includes(t)) return true;
        if (["0", "f", "false"].includes(t)) return false;
        throw new InvalidArgumentError(`${JSON.stringify(text)} is not a boolean.`);
      };
    case "strings":
      return (text, prev) => [...((prev as string[] | undefined) ?? []), text];
    default:
      return (text) => text;
  }
}
