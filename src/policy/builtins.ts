// Registers the built-in priority policies and schedulers.
import { priorityPolicies } from "./priority.js";
import { schedulers } from "./scheduler.js";
import { ConstantPriority } from "./priorities/constant.js";
import { InvertedSloPriority, SloBasedPriority } from "./priorities/sloBased.js";
import { SloClassPriority, SloTieredPriority } from "./priorities/sloTiered.js";
import { FcfsScheduler } from "./schedulers/fcfs.js";
import { PriorityFcfsScheduler, ReversePriorityScheduler } from "./schedulers/priorityFcfs.js";
import { SjfScheduler } from "./schedulers/sjf.js";

priorityPolicies.register("constant", () => new ConstantPriority());
priorityPolicies.register("slo-based", () => new SloBasedPriority());
priorityPolicies.register("inverted-slo", () => new InvertedSloPriority());
priorityPolicies.register("slo-tiered", (ctx) => new SloTieredPriority(ctx.slo));
priorityPolicies.register("slo-class", (ctx) => new SloClassPriority(ctx.slo));

schedulers.register("fcfs", () => new FcfsScheduler());
schedulers.register("priority-fcfs", () => new PriorityFcfsScheduler());
schedulers.register("sjf", () => new SjfScheduler());
schedulers.register("reverse-priority", () => new ReversePriorityScheduler());
