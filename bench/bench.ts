// `npm run bench`: simulated requests per wall-second and peak RSS, one process per case.
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import path from "node:path";

const here = path.dirname(fileURLToPath(import.meta.url));
const caseScript = path.join(here, "benchCase.js");

interface Row {
  kind: string;
  n: number;
  wall: number;
  rssMb: number;
  completed: number;
  steps: number;
}

function runCase(kind: string, n: number): Row {
  const out = execFileSync(process.execPath, ["--max-old-space-size=4096", caseScript, kind, String(n)], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  });
  return JSON.parse(out.trim().split("\n").pop()!) as Row;
}

const only = process.argv[2];
const plan: [string, number[]][] = [
  ["default", [1000, 10000, 100000]],
  ["reportsampling", [10000, 100000]],
  ["cluster8", [10000, 100000]],
  ["cluster8sampling", [10000, 100000]],
  ["weighted8", [10000, 100000]],
  ["multiturn", [10000, 100000]],
];

process.stdout.write("case             requests   wall_s   req_per_s   peak_rss_MB   steps\n");
for (const [kind, sizes] of plan) {
  if (only && only !== kind) continue;
  let last: Row | null = null;
  for (const n of sizes) {
    last = runCase(kind, n);
    print(last);
  }
  // The million-request run is attempted only when the 100k run suggests it fits in a minute.
  if (kind === "default" && last && last.wall * 10 < 60) print(runCase(kind, 1000000));
}

function print(r: Row): void {
  process.stdout.write(
    `${r.kind.padEnd(16)} ${String(r.n).padStart(9)} ${r.wall.toFixed(3).padStart(8)} ${Math.round(r.n / r.wall)
      .toString()
      .padStart(11)} ${r.rssMb.toFixed(0).padStart(13)} ${String(r.steps).padStart(7)}\n`,
  );
}
