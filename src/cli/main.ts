import "./zodSetup.js";
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
import { registerPlanCommand } from "./planCommand.js";
import { processIo, reportError, type CliIo } from "./io.js";
import { Logger } from "../util/log.js";
import { UserError } from "../util/errors.js";
import { PACKAGE_ROOT } from "../util/paths.js";
import { readInputFile, SPEC_FILE_LIMIT } from "../util/inputFile.js";
import { isWatched } from "../plugin/watch.js";
import { asksForPlugins } from "./pluginHost.js";

// The thread that runs a command with plugins sets these on the module instance it loaded.
export { attachWatch, recordExit as recordPluginExit } from "../plugin/watch.js";

/** The package version, read from its package.json. */
function packageVersion(): string {
  try {
    const pkg = JSON.parse(readInputFile(path.join(PACKAGE_ROOT, "package.json"), SPEC_FILE_LIMIT)) as {
      version?: unknown;
    };
    return typeof pkg.version === "string" ? pkg.version : "unknown";
  } catch {
    return "unknown";
  }
}

type Registrar = (program: Command, io: CliIo) => void;

/** The top-level commands, each with what registers it (one registrar adds both convert and compose). */
export const COMMANDS: readonly (readonly [readonly string[], Registrar])[] = [
  [["run"], registerRunCommand],
  [
    ["convert", "compose"],
    (p, io) => registerWorkloadCommands(p, { stdout: io.stdout, logger: new Logger("warn", io.stderrLine) }),
  ],
  [["sweep"], registerSweepCommand],
  [["report"], registerReportCommand],
  [["optimize"], registerOptimizeCommand],
  [["saturation"], registerSaturationCommand],
  [["models"], registerModelsCommand],
  [["calibrate"], registerCalibrateCommand],
  [["observe"], registerObserveCommand],
  [["replay"], registerReplayCommand],
  [["fit"], registerFitCommand],
  [["goodput"], registerGoodputCommand],
  [["worker"], registerWorkerCommand],
  [["playground"], registerPlaygroundCommand],
  [["plan"], registerPlanCommand],
];

/**
 * The program with every command, or with only the command named `only`: a run then skips
 * declaring the flags of the others (replay and observe take nearly all of run's), a few ms of its
 * start. A command's own help and errors do not mention its siblings, so they read the same.
 */
export function buildProgram(io: CliIo, only?: string): Command {
  const program = new Command("blis")
    .description("Fast, deterministic discrete-event simulator of LLM inference serving (BLIS-compatible)")
    .version(packageVersion(), "-V, --version", "print the version")
    // `blis -V` only: after a command name, `-V` is that command's (as a flag value, say).
    .enablePositionalOptions()
    .showHelpAfterError(false)
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.stdout(s),
      writeErr: (s) => io.stderrLine(s.replace(/\n$/, "")),
    });
  for (const [names, register] of COMMANDS) if (only === undefined || names.includes(only)) register(program, io);
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
      declared.length === 0
        ? "no arguments, only flags"
        : `at most ${declared.length} argument${declared.length === 1 ? "" : "s"}`;
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
  const args = helpAsFlag(argv);
  // Plugin code runs in a thread of its own, watched from this one (pluginHost.ts).
  if (!isWatched() && asksForPlugins(args)) return (await import("./pluginHost.js")).hostedMain(args, io);
  const first = args[0];
  const known = first !== undefined && COMMANDS.some(([names]) => names.includes(first));
  const program = buildProgram(io, known ? first : undefined);
  try {
    await program.parseAsync(args, { from: "user" });
    return 0;
  } catch (e) {
    return reportError(e, io);
  }
}
