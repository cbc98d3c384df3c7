// Preloaded into a benchmarked `blis run` process (node --import): when the process exits, writes
// its CPU time and peak RSS, as the OS reports them, to the file named by BLIS_BENCH_RUSAGE.
import fs from "node:fs";

const out = process.env["BLIS_BENCH_RUSAGE"];
if (out !== undefined) {
  process.on("exit", () => {
    const u = process.resourceUsage();
    fs.writeFileSync(out, JSON.stringify({ cpuS: (u.userCPUTime + u.systemCPUTime) / 1e6, rssMb: u.maxRSS / 1024 }));
  });
}
