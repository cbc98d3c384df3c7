// `node:v8` for the browser build: the memory budget of a run (src/sim/memoryBudget.ts) reads the
// heap limit. Chromium reports the page's JS heap limit; elsewhere no budget is known, so nothing
// is refused up front.

interface ChromiumMemory {
  memory?: { jsHeapSizeLimit?: number };
}

export function getHeapStatistics(): { heap_size_limit: number } {
  const limit = (globalThis.performance as (Performance & ChromiumMemory) | undefined)?.memory?.jsHeapSizeLimit;
  return { heap_size_limit: typeof limit === "number" && limit > 0 ? limit : Infinity };
}

export default { getHeapStatistics };
