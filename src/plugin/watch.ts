// What a watchdog outside this thread needs to see of plugin code: which plugin is running now and
// whether it has returned since it was last looked at. A synchronous plugin call that never returns
// (an endless loop in score()) blocks its thread for good, so only another thread can notice it
// and end this one (src/cli/pluginHost.ts). The marks are two stores into shared memory per call:
// cheap enough for score() in the routing loop. Without a watchdog they go to a private array.

/** Slots of the shared state. */
export const WATCH = {
  /** Id (1-based) of the plugin whose code runs now; 0 when none does. */
  ACTIVE: 0,
  /** Counts entries into plugin code: the same count twice means the same call is still running. */
  SEQ: 1,
  /** What the active plugin is doing: PHASE_LOAD or PHASE_CALL. */
  PHASE: 2,
  /** The budget of one load or one call, in milliseconds (0 until the flags are read). */
  BUDGET_MS: 3,
  /** Set to 1 + the status when plugin code called process.exit(status). */
  EXIT: 4,
  /** Id of the plugin that called process.exit. */
  EXIT_PLUGIN: 5,
  SLOTS: 6,
} as const;

export const PHASE_LOAD = 1;
export const PHASE_CALL = 2;

let state: Int32Array<ArrayBufferLike> = new Int32Array(WATCH.SLOTS);
let watched = false;
const files = new Map<string, number>();
const names = new Map<string, number>();
let announce: (id: number, file: string) => void = () => undefined;

/** Marks go to `buffer`, read by a watchdog in another thread; `onPlugin` learns each plugin's file. */
export function attachWatch(buffer: SharedArrayBuffer, onPlugin: (id: number, file: string) => void): void {
  state = new Int32Array(buffer);
  watched = true;
  announce = onPlugin;
}

/** Whether a watchdog reads the marks (the plugin host's worker thread). */
export function isWatched(): boolean {
  return watched;
}

/** Sets the budget of one load or call (from --plugin-timeout). */
export function setBudget(seconds: number): void {
  Atomics.store(state, WATCH.BUDGET_MS, Math.max(1, Math.min(2 ** 31 - 1, Math.round(seconds * 1000))));
}

/** The id of the plugin module `file` (as given on the command line), told to the watchdog when new. */
export function fileId(file: string): number {
  let id = files.get(file);
  if (id === undefined) {
    id = files.size + 1;
    files.set(file, id);
    announce(id, file);
  }
  return id;
}

/** Attributes the calls of the policies that plugin `name` registers to the plugin with this id. */
export function nameId(name: string, id: number): void {
  names.set(name, id);
}

/** The id of a loaded plugin by name (0 when unknown: its calls are then not attributed). */
export function loadedId(name: string): number {
  return names.get(name) ?? 0;
}

// Plain stores: this thread is the only writer, and the watchdog needs to see them within its
// polling period, not at once; Atomics stores (full fences) would cost about 100 ns per call.
export function enterPlugin(id: number, phase: number): void {
  state[WATCH.SEQ]!++;
  state[WATCH.PHASE] = phase;
  state[WATCH.ACTIVE] = id;
}

export function leavePlugin(): void {
  state[WATCH.ACTIVE] = 0;
}

/** The plugin running now (0 when none). */
export function activePlugin(): number {
  return Atomics.load(state, WATCH.ACTIVE);
}

/** Records an exit asked for by plugin code, for the watchdog to name once this thread has ended. */
export function recordExit(status: number): void {
  Atomics.store(state, WATCH.EXIT_PLUGIN, Atomics.load(state, WATCH.ACTIVE));
  Atomics.store(state, WATCH.EXIT, 1 + status);
}
