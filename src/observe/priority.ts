// The `priority` body field sent with an SLO class (docs/observe.md "Requests"): vLLM serves lower
// values first, so the class map of today's BLIS is sent inverted (policy/priorities/staticClass.ts).

export { vllmClassPriority as vllmPriority } from "../policy/priorities/staticClass.js";
