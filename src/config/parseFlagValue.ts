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
        // --horizon and --seed hold any int64 (the horizon saturates); the rest must be exact doubles.
        const max = flag === "--horizon" || flag === "--seed" ? INT64_MAX : SAFE;
        const min = max === INT64_MAX ? -max - 1n : -max;
        const v = parseGoInt(text.trim());
        if (v === null || v > max || v < min) throw new InvalidArgumentError(intProblem(text, min, max));
        if (flag === "--horizon") {
          if (v === INT64_MAX) return Infinity;
          return v > SAFE ? Number.MAX_SAFE_INTEGER : Number(v);
        }
        if (flag === "--seed") return v > SAFE || v < -SAFE ? v : Number(v);
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
        if (v === null)
          throw new InvalidArgumentError(`${JSON.stringify(text)} is not a comma-separated list of numbers.`);
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

/** Why `text` is not an acceptable integer: out of range (with the limit), or not an integer. */
function intProblem(text: string, min: bigint, max: bigint): string {
  const t = text.trim();
  const q = JSON.stringify(text);
  const limit = (negative: boolean): string =>
    `${q} is out of range (${negative ? `minimum ${min}` : `maximum ${max}`}).`;
  if (/^[+-]?\d+$/.test(t)) return limit(t.startsWith("-"));
  // Exponent forms such as 1e6 are not integer syntax (as in BLIS), but say what they stand for.
  const x = parseGoFloat(t);
  if (x !== null && Number.isInteger(x)) {
    return Math.abs(x) > Number(max) ? limit(x < 0) : `${q} is not an integer; write it as ${BigInt(x)}.`;
  }
  return `${q} is not an integer.`;
}
