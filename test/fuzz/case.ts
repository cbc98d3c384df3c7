// One generated command line with the files it refers to. Paths inside the case's fresh temporary
// directory are written with the DIR placeholder, so a case prints (and replays) the same
// whatever directory it ran in.

import fc from "fast-check";

export const DIR = "@DIR@";
/** Placeholder of the repository root (bundled data, examples, fixtures), in arguments and file contents. */
export const REPO = "@REPO@";

export type Family = "run" | "spec" | "bundle" | "sweep" | "optimize" | "files" | "plugin";

export interface FuzzFile {
  /** Path relative to the case directory. */
  name: string;
  content: string;
  /** A special file instead of a regular one (content unused): a FIFO, or a symbolic link to /dev/zero. */
  kind?: "fifo" | "zero-link";
}

export interface FuzzCase {
  family: Family;
  /** The arguments after `blis`, with DIR standing for the case directory. */
  argv: string[];
  /** Files to write before the run (input files, and outputs that exist beforehand). */
  files: FuzzFile[];
  /** Empty directories to create before the run. */
  dirs: string[];
  /** Names an error may use for the bad item besides the flags on the command line: keys of the files. */
  keys: string[];
}

/** `text` with the placeholders replaced by the case directory and the repository root. */
export function concrete(text: string, dir: string, repo: string): string {
  return text.split(DIR).join(dir).split(REPO).join(repo);
}

/** A shell-like rendering of the case: the files, then the command line. */
export function renderCase(c: FuzzCase): string {
  const quote = (a: string): string => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, "'\\''")}'`);
  const files = c.files.map((f) =>
    f.kind === "fifo"
      ? `mkfifo ${DIR}/${f.name}`
      : f.kind === "zero-link"
        ? `ln -s /dev/zero ${DIR}/${f.name}`
        : `--- ${DIR}/${f.name}\n${f.content}${f.content.endsWith("\n") ? "" : "\n"}--- end`,
  );
  const dirs = c.dirs.map((d) => `mkdir ${DIR}/${d}`);
  return [...dirs, ...files, `blis ${c.argv.map(quote).join(" ")}`].join("\n");
}

/** Gives a case fast-check's printable form (counterexamples are printed with renderCase). */
export function printable(c: FuzzCase): FuzzCase {
  return Object.assign(c, { [fc.toStringMethod]: () => `\n${renderCase(c)}\n` });
}
