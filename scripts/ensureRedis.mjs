// Part of `npm test`, after the build: the work-queue tests (test/queue/) start their own
// redis-server on a free port, so a fresh machine gets one here: Debian's redis-server package
// through apt-get when we are root (or sudo needs no password). Nothing is started here.
import { spawnSync } from "node:child_process";
import fs from "node:fs";

function found() {
  return spawnSync("redis-server", ["--version"], { stdio: "ignore" }).status === 0;
}

function run(cmd, args) {
  console.error(`pretest: ${cmd} ${args.join(" ")}`);
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  return spawnSync(cmd, args, { stdio: ["ignore", "inherit", "inherit"], env }).status === 0;
}

function aptInstall() {
  if (!fs.existsSync("/usr/bin/apt-get")) return false;
  const root = typeof process.getuid === "function" && process.getuid() === 0;
  const sudo = root ? [] : spawnSync("sudo", ["-n", "true"]).status === 0 ? ["sudo", "-n"] : null;
  if (sudo === null) return false;
  const apt = (args) => (sudo.length > 0 ? run(sudo[0], [...sudo.slice(1), "apt-get", ...args]) : run("apt-get", args));
  // The package's own service is not wanted: the tests start servers themselves.
  return apt(["update", "-qq"]) && apt(["install", "-y", "-qq", "--no-install-recommends", "redis-server"]);
}

if (!found()) {
  console.error("pretest: no redis-server found; the work-queue tests need one, installing it");
  if (!(aptInstall() && found())) {
    console.error("pretest: could not install redis-server. Install Debian's package: apt-get install -y redis-server");
    process.exit(1);
  }
}
console.error(
  `pretest: work-queue tests use ${spawnSync("redis-server", ["--version"], { encoding: "utf8" }).stdout.trim()}`,
);
