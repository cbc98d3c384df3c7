// Messages between the plugin host (pluginHost.ts) and the thread running the command
// (pluginHostWorker.ts).

export interface HostData {
  pluginHost: true;
  argv: string[];
  /** The plugin watch state (src/plugin/watch.ts), shared with the watchdog. */
  state: SharedArrayBuffer;
}

export type HostMessage =
  | { kind: "plugin"; id: number; file: string }
  | { kind: "out"; text: string }
  | { kind: "err"; line: string }
  | { kind: "rejection"; message: string; stack: string }
  | { kind: "done"; code: number };
