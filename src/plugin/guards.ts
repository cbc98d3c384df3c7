// Wrappers that turn a misbehaving plugin into a one-line error naming the plugin and request.
import { PluginError } from "../util/errors.js";
import type { AdmissionFactory, AdmissionPolicy } from "../cluster/admission/admission.js";
import type { Scorer, ScorerFactory } from "../cluster/scorers/scorer.js";
import type { PriorityFactory, PriorityPolicy } from "../policy/priority.js";
import type { Scheduler, SchedulerContext } from "../policy/scheduler.js";
import type { RoutingFactory, RoutingPolicy } from "../cluster/routing/routing.js";
import { RoutingDecision } from "../cluster/routing/routing.js";
import type { Request } from "../core/request.js";
import { enterPlugin, leavePlugin, loadedId, PHASE_CALL } from "./watch.js";

function fail(plugin: string, what: string, req: Request | null, detail: string): never {
  throw new PluginError(`plugin ${plugin}: ${what}${req ? ` (request ${req.id})` : ""}: ${detail}`);
}

/** A plugin as its guards see it: its name for messages, its id for the watchdog (watch.ts). */
interface Who {
  name: string;
  id: number;
}

const who = (plugin: string): Who => ({ name: plugin, id: loadedId(plugin) });

function call<T>(w: Who, what: string, req: Request | null, f: () => T): T {
  enterPlugin(w.id, PHASE_CALL);
  try {
    return f();
  } catch (e) {
    if (e instanceof PluginError) throw e;
    return fail(w.name, what, req, `threw ${e instanceof Error ? e.message.split("\n")[0] : String(e)}`);
  } finally {
    leavePlugin();
  }
}

function construct<T extends object>(w: Who, what: string, make: () => T, methods: string[]): T {
  const plugin = w.name;
  const obj = call(w, `${what} factory`, null, make);
  if (obj === null || typeof obj !== "object") fail(plugin, `${what} factory`, null, "did not return an object");
  for (const m of methods) {
    if (typeof (obj as Record<string, unknown>)[m] !== "function") fail(plugin, what, null, `missing method ${m}()`);
  }
  return obj;
}

export function guardScorer(plugin: string, name: string, f: ScorerFactory): ScorerFactory {
  return (ctx) => {
    const w = who(plugin);
    const inner = construct(w, `scorer "${name}"`, () => f(ctx), ["score"]);
    const g: Scorer = {
      name,
      score(req, state, out) {
        call(w, `scorer "${name}"`, req, () => inner.score(req, state, out));
        for (let i = 0; i < out.length; i++) {
          if (!Number.isFinite(out[i]!))
            fail(plugin, `scorer "${name}"`, req, `non-finite score ${out[i]} for instance_${i}`);
        }
      },
      observe(req, chosen) {
        if (typeof inner.observe === "function")
          call(w, `scorer "${name}" observe`, req, () => inner.observe(req, chosen));
      },
    };
    return g;
  };
}

export function guardAdmission(plugin: string, name: string, f: AdmissionFactory): AdmissionFactory {
  return (ctx) => {
    const w = who(plugin);
    const inner = construct(w, `admission policy "${name}"`, () => f(ctx), ["admit"]);
    const g: AdmissionPolicy = {
      name,
      reason: "",
      admit(req, state) {
        const ok = call(w, `admission policy "${name}"`, req, () => inner.admit(req, state));
        if (typeof ok !== "boolean")
          fail(plugin, `admission policy "${name}"`, req, `admit() returned ${typeof ok}, expected boolean`);
        g.reason = typeof inner.reason === "string" ? inner.reason : "";
        return ok;
      },
    };
    return g;
  };
}

export function guardPriority(plugin: string, name: string, f: PriorityFactory): PriorityFactory {
  return (ctx) => {
    const w = who(plugin);
    const inner = construct(w, `priority policy "${name}"`, () => f(ctx), ["compute"]);
    return {
      name,
      isConstant: inner.isConstant === true,
      compute(req, now) {
        const p = call(w, `priority policy "${name}"`, req, () => inner.compute(req, now));
        if (typeof p !== "number" || !Number.isFinite(p))
          fail(plugin, `priority policy "${name}"`, req, `returned non-finite priority ${String(p)}`);
        return p;
      },
    } satisfies PriorityPolicy;
  };
}

export function guardScheduler(
  plugin: string,
  name: string,
  f: (ctx: SchedulerContext) => Scheduler,
): (ctx: SchedulerContext) => Scheduler {
  return (ctx) => {
    const w = who(plugin);
    const inner = construct(w, `scheduler "${name}"`, () => f(ctx), ["compare"]);
    return {
      name,
      reorders: inner.reorders !== false,
      compare(a, b) {
        const c = call(w, `scheduler "${name}"`, a, () => inner.compare(a, b));
        if (typeof c !== "number" || Number.isNaN(c))
          fail(plugin, `scheduler "${name}"`, a, `compare() returned ${String(c)}, expected a number`);
        return c;
      },
    } satisfies Scheduler;
  };
}

export function guardRouting(plugin: string, name: string, f: RoutingFactory): RoutingFactory {
  return (ctx) => {
    const w = who(plugin);
    const inner = construct(w, `routing policy "${name}"`, () => f(ctx), ["route"]);
    const d = new RoutingDecision();
    return {
      name,
      route(req, state) {
        const r = call(w, `routing policy "${name}"`, req, () => inner.route(req, state));
        if (
          r === null ||
          typeof r !== "object" ||
          !Number.isInteger(r.target) ||
          r.target < 0 ||
          r.target >= state.snapshots.length
        ) {
          fail(plugin, `routing policy "${name}"`, req, "route() must return { target: <instance index> }");
        }
        d.target = r.target;
        d.reason = typeof r.reason === "string" ? r.reason : name;
        d.scores = r.scores instanceof Float64Array ? r.scores : null;
        d.priorityHint = typeof r.priorityHint === "number" && Number.isFinite(r.priorityHint) ? r.priorityHint : 0;
        return d;
      },
    } satisfies RoutingPolicy;
  };
}
