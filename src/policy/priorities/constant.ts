import type { PriorityPolicy } from "../priority.js";

export class ConstantPriority implements PriorityPolicy {
  readonly name = "constant";
  readonly isConstant = true;
  compute(): number {
    return 0;
  }
}
