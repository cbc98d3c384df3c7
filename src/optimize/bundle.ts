// The best configuration as a policy bundle (src/config/policyBundle.ts): the parameters whose
// run options have a bundle key go into it, the others stay flags.

import { PolicyBundleSchema } from "../config/policyBundle.js";
import type { RunInput } from "../config/runOptions.js";
import { flagWords, shellQuote } from "./commandLine.js";
import type { OptimizeSpace } from "./space.js";

type Bundle = Record<string, unknown>;

function setIn(b: Bundle, keys: string[], v: unknown): void {
  let o = b;
  for (const k of keys.slice(0, -1)) o = (o[k] ??= {}) as Bundle;
  o[keys[keys.length - 1]!] = v;
}

function listMap(text: string): Record<string, number> {
  const o: Record<string, number> = {};
  for (const piece of text.split(",")) {
    const i = piece.indexOf(":");
    if (i > 0) o[piece.slice(0, i).trim()] = Number(piece.slice(i + 1).trim());
  }
  return o;
}

/** Run option → where it goes in a policy bundle (src/config/policyBundle.ts). */
const BUNDLE_KEYS: Record<string, (b: Bundle, v: unknown) => void> = {
  admissionPolicy: (b, v) => setIn(b, ["admission", "policy"], v),
  admissionLoadThreshold: (b, v) => setIn(b, ["admission", "load_threshold"], v),
  tokenBucketCapacity: (b, v) => setIn(b, ["admission", "token_bucket_capacity"], v),
  tokenBucketRefillRate: (b, v) => setIn(b, ["admission", "token_bucket_refill_rate"], v),
  routingPolicy: (b, v) => setIn(b, ["routing", "policy"], v),
  routingScorers: (b, v) =>
    setIn(
      b,
      ["routing", "scorers"],
      Object.entries(listMap(String(v))).map(([name, weight]) => ({ name, weight })),
    ),
  sloCacheWeights: (b, v) => setIn(b, ["routing", "slo_cache_weights"], listMap(String(v))),
  priorityPolicy: (b, v) => setIn(b, ["priority", "policy"], v),
  sloBaseCritical: (b, v) => setIn(b, ["priority", "base_scores", "critical"], v),
  sloBaseStandard: (b, v) => setIn(b, ["priority", "base_scores", "standard"], v),
  sloBaseSheddable: (b, v) => setIn(b, ["priority", "base_scores", "sheddable"], v),
  sloAgeWeight: (b, v) => setIn(b, ["priority", "age_weight"], v),
  sloThresholdCritical: (b, v) => setIn(b, ["priority", "urgency_thresholds_us", "critical"], v),
  sloThresholdStandard: (b, v) => setIn(b, ["priority", "urgency_thresholds_us", "standard"], v),
  sloThresholdSheddable: (b, v) => setIn(b, ["priority", "urgency_thresholds_us", "sheddable"], v),
  priorityBridge: (b, v) => setIn(b, ["priority", "bridge"], v),
  scheduler: (b, v) => setIn(b, ["scheduler"], v),
  sloPrefillThresholds: (b, v) => setIn(b, ["slo_prefill_thresholds"], listMap(String(v))),
  preemptionPolicy: (b, v) => setIn(b, ["preemption"], v),
};

export interface BestBundle {
  /** The policy bundle of the parameters that have bundle keys ({} when none has). */
  bundle: Bundle;
  /** Run options the bundle sets (drop them from the command that uses --policy-config). */
  covered: Set<string>;
  /** Parameters with a bundle key, and the others with the flag words that set them. */
  inBundle: string[];
  notInBundle: { name: string; words: string[] }[];
}

/** Splits the best point's parameters into a policy bundle and the rest (flags). */
export function bundleFor(space: OptimizeSpace, input: RunInput): BestBundle {
  const inp = input as Record<string, unknown>;
  const bundle: Bundle = {};
  const covered = new Set<string>();
  const inBundle: string[] = [];
  const notInBundle: { name: string; words: string[] }[] = [];
  const put = (key: string): void => {
    BUNDLE_KEYS[key]!(bundle, inp[key]);
    covered.add(key);
  };
  let scorersDone = false;
  for (const p of space.parameters) {
    const t = p.target;
    let keys: string[];
    if (t.kind === "flag") keys = [t.def.key];
    else if (t.kind === "variant")
      keys = [...new Set(p.categories.flatMap((c) => Object.keys(c.flags)))].filter((k) => inp[k] !== undefined);
    else if (t.kind === "scorer") keys = ["routingScorers"];
    else keys = [];
    const mapped = keys.length > 0 && keys.every((k) => BUNDLE_KEYS[k] !== undefined);
    if (!mapped) {
      let words: string[];
      if (t.kind === "plugin_option") {
        const entry =
          ((inp["pluginOption"] as string[] | undefined) ?? []).filter((s) => s.startsWith(`${t.option}=`)).pop() ?? "";
        words = ["--plugin-option", shellQuote(entry)];
      } else words = flagWords(Object.fromEntries(keys.map((k) => [k, inp[k]])) as RunInput);
      notInBundle.push({ name: p.name, words });
      continue;
    }
    if (t.kind === "scorer") {
      if (!scorersDone) {
        put("routingScorers");
        if (inp["routingPolicy"] !== undefined) put("routingPolicy");
        scorersDone = true;
      }
    } else for (const k of keys) put(k);
    inBundle.push(p.name);
  }
  const check = PolicyBundleSchema.safeParse(bundle);
  if (!check.success)
    throw new Error(`optimize: the best policy bundle does not validate: ${check.error.issues[0]?.message ?? ""}`);
  return { bundle, covered, inBundle, notInBundle };
}
