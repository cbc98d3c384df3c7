// Registers the built-in priority policies, schedulers and preemption rules: one descriptor each.
import { factoryPolicy } from "../util/policyRegistry.js";
import { priorityPolicies } from "./priority.js";
import { schedulers } from "./scheduler.js";
import { preemptionPolicies } from "./preemption.js";
import { ConstantPriority } from "./priorities/constant.js";
import { InvertedSloPriority, SloBasedPriority } from "./priorities/sloBased.js";
import { SloClassPriority, SloTieredPriority } from "./priorities/sloTiered.js";
import { StaticClassPriority } from "./priorities/staticClass.js";
import { FcfsScheduler } from "./schedulers/fcfs.js";
import { PriorityFcfsScheduler, ReversePriorityScheduler } from "./schedulers/priorityFcfs.js";
import { SjfScheduler } from "./schedulers/sjf.js";

// The registration order is the order of the --help lists.
priorityPolicies.register(factoryPolicy("constant", () => new ConstantPriority(), "the same priority for all"));
priorityPolicies.register(factoryPolicy("slo-based", () => new SloBasedPriority(), "age-based"));
priorityPolicies.register(factoryPolicy("inverted-slo", () => new InvertedSloPriority(), "inverted age-based"));
priorityPolicies.register(
  factoryPolicy("slo-tiered", (ctx) => new SloTieredPriority(ctx.slo), "tier base score plus urgency"),
);
priorityPolicies.register(factoryPolicy("slo-class", (ctx) => new SloClassPriority(ctx.slo), "tier base score"));
priorityPolicies.register(
  factoryPolicy("static-class", () => new StaticClassPriority(), "fixed by SLO class, as vLLM priorities"),
);

schedulers.register(factoryPolicy("fcfs", () => new FcfsScheduler(), "arrival order"));
schedulers.register(factoryPolicy("priority-fcfs", () => new PriorityFcfsScheduler(), "priority, then arrival"));
schedulers.register(factoryPolicy("sjf", () => new SjfScheduler(), "shortest prompt first"));
schedulers.register(factoryPolicy("reverse-priority", () => new ReversePriorityScheduler(), "lowest priority first"));

preemptionPolicies.register(factoryPolicy("fcfs", () => "tail" as const, "the last running request"));
preemptionPolicies.register(
  factoryPolicy("tail", () => "tail" as const, "the last running request (the seed name of fcfs)"),
);
preemptionPolicies.register(
  factoryPolicy("priority", () => "priority" as const, "the least urgent running request, latest arrival first"),
);
preemptionPolicies.register(factoryPolicy("slo-aware", () => "slo-aware" as const, "the lowest SLO tier"));
