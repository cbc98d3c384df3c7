import path from "node:path";
import { pathToFileURL } from "node:url";
import { UserError } from "../util/errors.js";
import type { Logger } from "../util/log.js";
import { scorers } from "../cluster/scorers/scorer.js";
import { admissionPolicies } from "../cluster/admission/admission.js";
import { priorityPolicies } from "../policy/priority.js";
import { schedulers, type Scheduler, type SchedulerContext } from "../policy/scheduler.js";
import { routingPolicies } from "../cluster/routing/routing.js";
import type { PolicyRegistry } from "../util/policyRegistry.js";
import { pluginDescriptor } from "./descriptor.js";
import type { PluginApi, PluginModule } from "./types.js";
import { guardAdmission, guardPriority, guardRouting, guardScheduler, guardScorer } from "./guards.js";
import { checkInputFile, readFailure, SPEC_FILE_LIMIT } from "../util/inputFile.js";
import { enterPlugin, fileId, leavePlugin, nameId, PHASE_LOAD } from "./watch.js";

/**
 * Imports each plugin module (Node caches the module itself) and calls its register(api) with this
 * run's options. Returns a function that removes everything registered, so that a plugin's
 * policies and options belong to one simulation, not to the process (sweep workers run many).
 */
export async function loadPlugins(
  files: readonly string[],
  log: Logger,
  options: Record<string, Record<string, string>> = {},
): Promise<() => void> {
  const registered: [{ unregister(name: string): void }, string][] = [];
  const dispose = (): void => {
    for (const [reg, name] of registered) reg.unregister(name);
    registered.length = 0;
  };
  try {
    await registerAll(files, log, options, registered);
  } catch (e) {
    dispose();
    throw e;
  }
  return dispose;
}

async function registerAll(
  files: readonly string[],
  log: Logger,
  options: Record<string, Record<string, string>>,
  registered: [{ unregister(name: string): void }, string][],
): Promise<void> {
  const names: string[] = [];
  for (const file of files) {
    const abs = path.resolve(file);
    let mod: Partial<PluginModule> & { default?: Partial<PluginModule> };
    try {
      // Node's loader would block on a FIFO or read a device without end.
      checkInputFile(abs, SPEC_FILE_LIMIT);
    } catch (e) {
      throw new UserError(`--plugin ${file}: cannot load module: ${readFailure(e)}`);
    }
    const id = fileId(file);
    enterPlugin(id, PHASE_LOAD);
    try {
      mod = (await import(pathToFileURL(abs).href)) as typeof mod;
    } catch (e) {
      throw new UserError(`--plugin ${file}: cannot load module: ${firstLine(e)}`);
    } finally {
      leavePlugin();
    }
    const register = mod.register ?? mod.default?.register;
    if (typeof register !== "function") {
      throw new UserError(`--plugin ${file}: module must export a register(api) function`);
    }
    const pluginName = mod.name ?? mod.default?.name ?? path.basename(file);
    nameId(pluginName, id);
    type Guard<C, T> = (plugin: string, name: string, f: (c: C) => T) => (c: C) => T;
    // A descriptor, or the older name-and-factory form; construction goes through the guard.
    const source = { name: pluginName, file, options: options[pluginName] ?? {} };
    const add = <C, T>(
      reg: PolicyRegistry<C, T>,
      kind: string,
      guard: Guard<C, T>,
      d: unknown,
      factory: unknown,
    ): void => {
      const desc = pluginDescriptor<C, T>(source, kind, d, factory);
      const name = desc.name;
      if (reg.has(name)) throw new UserError(`plugin ${pluginName}: ${kind} "${name}" is already registered`);
      reg.register({ ...desc, create: (p, c) => guard(pluginName, name, (cc: C) => desc.create(p, cc))(c) });
      registered.push([reg, name]);
    };
    const api: PluginApi = {
      options: source.options,
      registerScorer: (d: unknown, f?: unknown) => add(scorers, "scorer", guardScorer, d, f),
      registerAdmissionPolicy: (d: unknown, f?: unknown) =>
        add(admissionPolicies, "admission policy", guardAdmission, d, f),
      registerPriorityPolicy: (d: unknown, f?: unknown) =>
        add(priorityPolicies, "priority policy", guardPriority, d, f),
      registerScheduler: (d: unknown, f?: unknown) =>
        add<SchedulerContext, Scheduler>(schedulers, "scheduler", guardScheduler, d, f),
      registerRoutingPolicy: (d: unknown, f?: unknown) => add(routingPolicies, "routing policy", guardRouting, d, f),
    };
    enterPlugin(id, PHASE_LOAD);
    try {
      await register(api);
      // A rejection register() left unhandled surfaces now, while this plugin is the one loading.
      await new Promise((resolve) => setImmediate(resolve));
    } catch (e) {
      if (e instanceof UserError) throw e;
      throw new UserError(`plugin ${pluginName}: register() failed: ${firstLine(e)}`);
    } finally {
      leavePlugin();
    }
    names.push(pluginName);
    log.info(`Loaded plugin ${pluginName} from ${file}`);
  }
  for (const name of Object.keys(options)) {
    if (!names.includes(name)) {
      throw new UserError(
        `--plugin-option ${name}.KEY=VALUE: no loaded plugin is named "${name}" (loaded: ${names.join(", ")})`,
      );
    }
  }
}

export function firstLine(e: unknown): string {
  const msg = e instanceof Error ? e.message : String(e);
  return msg.split("\n")[0]!;
}
