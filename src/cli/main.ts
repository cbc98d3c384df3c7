import "./zodSetup.js";
import fs from "node:fs";
import path from "node:path";
import { Command } from "commander";
import { registerRunCommand } from "./runCommand.js";
import { registerWorkloadCommands } from "./workloadCommands.js";
import { registerSweepCommand } from "./sweepCommand.js";
import { registerReportCommand } from "./reportCommand.js";
import { registerOptimizeCommand } from "./optimizeCommand.js";
import { registerSaturationCommand } from "./saturationCommand.js";
import { registerModelsCommand } from "./modelsCommand.js";
import { registerCalibrateCommand } from "./calibrateCommand.js";
import { registerObserveCommand } from "./observeCommand.js";
import { registerReplayCommand } from "./replayCommand.js";
import { registerFitCommand } from "./fitCommand.js";
import { registerGoodputCommand } from "./goodputCommand.js";
import { registerWorkerCommand } from "./workerCommand.js";
import { registerPlaygroundCommand } from "./playgroundCommand.js";
import { processIo, reportError, type CliIo } from "./io.js";
import { Logger } from "../util/log.js";
import { UserError } from "../util/errors.js";
import { PACKAGE_ROOT } from "../config/paths.js";

/** The package version, read from its package.json. */
function packageVersion(): string {
  try {
    const pkg = JSON.parse(fs.readFileSync(path.join(PACKAGE_ROOT, "package.json"), "utf8")) as { version?: unknown };
    return typeof pkg.version === "string" ? pkg.version : "unknown";
  } catch {
    return "unknown";
  }
}

export function buildProgram(io: CliIo): Command {
  const program = new Command("blis")
    .description("Fast, deterministic discrete-event simulator of LLM inference serving (BLIS-compatible)")
    .version(packageVersion(), "-V, --version", "print the version")
    .showHelpAfterError(false)
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.stdout(s),
      writeErr: (s) => io.stderrLine(s.replace(/\n$/, "")),
    });
  registerRunCommand(program, io);
  registerWorkloadCommands(program, { stdout: io.stdout, logger: new Logger("warn", io.stderrLine) });
  registerSweepCommand(program, io);
  registerReportCommand(program, io);
  registerOptimizeCommand(program, io);
  registerSaturationCommand(program, io);
  registerModelsCommand(program, io);
  registerCalibrateCommand(program, io);
  registerObserveCommand(program, io);
  registerReplayCommand(program, io);
  registerFitCommand(program, io);
  registerGoodputCommand(program, io);
  registerWorkerCommand(program, io);
  registerPlaygroundCommand(program, io);
  rejectExtraArguments(program);
  return program;
}

/**
 * Commander's "too many arguments" does not say which one (a stray `-`, or flags after `--`), so
 * every command accepts extra arguments and the first one is named before the action runs.
 */
function rejectExtraArguments(program: Command): void {
  const allow = (c: Command): void => {
    c.allowExcessArguments(true);
    c.commands.forEach(allow);
  };
  allow(program);
  program.hook("preAction", (_root, cmd) => {
    const declared = cmd.registeredArguments;
    if (declared.at(-1)?.variadic === true) return;
    const extra = cmd.args[declared.length];
    if (extra === undefined) return;
    const takes =
      declared.length === 0 ? "no arguments, only flags" : `at most ${declared.length} argument${declared.length === 1 ? "" : "s"}`;
    const names: string[] = [];
    for (let c: Command | null = cmd; c !== null && c !== program; c = c.parent) names.unshift(c.name());
    const what = extra === "" ? `empty argument ""` : `argument ${JSON.stringify(extra)}`;
    throw new UserError(`unexpected ${what}: blis ${names.join(" ")} takes ${takes}`);
  });
}

/**
 * `blis help convert scenario` → `blis convert scenario --help`: commander's help command looks
 * one level deep only, so nested commands would show their parent's help.
 */
function helpAsFlag(argv: string[]): string[] {
  return argv[0] === "help" && argv.length > 2 ? [...argv.slice(1), "--help"] : argv;
}

export async function main(argv: string[], io: CliIo = processIo): Promise<number> {
  const program = buildProgram(io);
  try {
    await program.parseAsync(helpAsFlag(argv), { from: "user" });
    return 0;
  } catch (e) {
    return reportError(e, io);
  }
}
