import { main } from "../../src/cli/main.js";

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string[];
}

/** Runs the CLI in-process with captured output. */
export async function cli(args: string[]): Promise<CliRun> {
  let stdout = "";
  const stderr: string[] = [];
  const code = await main(args, { stdout: (s) => (stdout += s), stderrLine: (l) => stderr.push(l) });
  return { code, stdout, stderr };
}

/** stderr without the line `blis run` prints about the latency coefficients it used. */
export function withoutLatencyNote(stderr: readonly string[]): string[] {
  return stderr.filter((l) => !l.startsWith('level=info msg="latency: '));
}

/** Splits a shell-like command line (double quotes only). */
export function splitArgs(cmd: string): string[] {
  const out: string[] = [];
  const re = /"([^"]*)"|(\S+)/g;
  for (let m = re.exec(cmd); m !== null; m = re.exec(cmd)) out.push(m[1] ?? m[2]!);
  return out;
}

/** The JSON objects printed after each `=== Simulation Metrics ===` header. */
export function metricBlocks(stdout: string): Record<string, number | string>[] {
  const out: Record<string, number | string>[] = [];
  const parts = stdout.split("=== Simulation Metrics ===\n").slice(1);
  for (const p of parts) {
    const end = p.indexOf("\n}\n");
    out.push(JSON.parse(p.slice(0, end + 2)) as Record<string, number | string>);
  }
  return out;
}

export function clusterBlock(stdout: string): Record<string, number | string> {
  const b = metricBlocks(stdout).find((x) => x["instance_id"] === "cluster");
  if (!b) throw new Error(`no cluster block in:\n${stdout}`);
  return b;
}
