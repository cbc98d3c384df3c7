// Prompt text of `blis observe` (docs/observe.md "Prompts"): one word of a fixed 100-word
// vocabulary per planned input token ID, so requests that share token IDs (a shared prefix,
// earlier session rounds) share prompt text and hit the server's prefix cache.

/** 100 distinct common English words; most tokenizers encode each as one token after a space. */
export const VOCABULARY: readonly string[] = [
  "time",
  "year",
  "people",
  "way",
  "day",
  "man",
  "thing",
  "woman",
  "life",
  "child",
  "world",
  "school",
  "state",
  "family",
  "student",
  "group",
  "country",
  "problem",
  "hand",
  "part",
  "place",
  "case",
  "week",
  "company",
  "system",
  "program",
  "question",
  "work",
  "river",
  "number",
  "night",
  "point",
  "home",
  "water",
  "room",
  "mother",
  "area",
  "money",
  "story",
  "fact",
  "month",
  "lot",
  "right",
  "study",
  "book",
  "eye",
  "job",
  "word",
  "business",
  "issue",
  "side",
  "kind",
  "head",
  "house",
  "service",
  "friend",
  "father",
  "power",
  "hour",
  "game",
  "line",
  "end",
  "member",
  "law",
  "car",
  "city",
  "garden",
  "name",
  "market",
  "team",
  "minute",
  "idea",
  "kid",
  "body",
  "window",
  "back",
  "parent",
  "face",
  "table",
  "level",
  "office",
  "door",
  "health",
  "person",
  "art",
  "war",
  "history",
  "party",
  "result",
  "change",
  "morning",
  "reason",
  "paper",
  "girl",
  "music",
  "moment",
  "air",
  "teacher",
  "force",
  "letter",
];

/** The word of one token ID (any integer, negative included). */
export function wordOf(tokenId: number): string {
  const n = VOCABULARY.length;
  return VOCABULARY[((tokenId % n) + n) % n]!;
}

/** Words sent for `inputLen` planned tokens: round(inputLen / tokensPerWord), at least 1. */
export function wordCountFor(inputLen: number, tokensPerWord: number): number {
  const tpw = tokensPerWord > 0 ? tokensPerWord : 1;
  return Math.max(1, Math.round(inputLen / tpw));
}

/**
 * The prompt of a request: the words of its first input token IDs, space-separated. `tokens`
 * holds the input IDs first (then the output IDs, which are not used).
 */
export function promptFromTokens(tokens: ArrayLike<number>, inputLen: number, tokensPerWord: number): string {
  const words = wordCountFor(inputLen, tokensPerWord);
  const out: string[] = new Array<string>(words);
  for (let i = 0; i < words; i++) out[i] = wordOf(i < inputLen && i < tokens.length ? tokens[i]! : i);
  return out.join(" ");
}

/** The tokens-per-word probe prompt: every vocabulary word once. */
export function probePrompt(): string {
  return VOCABULARY.join(" ");
}
