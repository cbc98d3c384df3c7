// inference-perf compact format (workload.md §2.7): P system prompts × U users become
// P·U poisson clients; stages only gate activity (windows), never the rate (§9 Q9).

import { fmtF } from "../util/format.js";
import { dist, makeClient, type ClientSpec, type InferencePerfSpec } from "./types.js";

export interface InferencePerfFailure {
  message: string;
  path: string;
}

/** Above this many clients the expansion is refused (memory guard; not in the reference). */
export const MAX_EXPANDED_CLIENTS = 1_000_000;

export function findInferencePerfFailure(ip: InferencePerfSpec): InferencePerfFailure | null {
  if (ip.stages.length === 0) return { message: "inference_perf: at least one stage required", path: "inference_perf.stages" };
  for (let i = 0; i < ip.stages.length; i++) {
    const s = ip.stages[i]!;
    const path = `inference_perf.stages[${i}]`;
    if (s.duration <= 0) return { message: `inference_perf.stages[${i}]: duration must be positive, got ${s.duration}`, path: `${path}.duration` };
    if (!Number.isFinite(s.rate) || s.rate <= 0) {
      return { message: `inference_perf.stages[${i}]: rate must be a finite positive number, got ${fmtF(s.rate)}`, path: `${path}.rate` };
    }
  }
  const sp = ip.shared_prefix;
  if (sp === undefined) return { message: "inference_perf: shared_prefix is required", path: "inference_perf" };
  const base = "inference_perf.shared_prefix";
  if (sp.num_unique_system_prompts <= 0) {
    return { message: `${base}: num_unique_system_prompts must be positive, got ${sp.num_unique_system_prompts}`, path: `${base}.num_unique_system_prompts` };
  }
  if (sp.num_users_per_system_prompt <= 0) {
    return { message: `${base}: num_users_per_system_prompt must be positive, got ${sp.num_users_per_system_prompt}`, path: `${base}.num_users_per_system_prompt` };
  }
  for (const key of ["system_prompt_len", "question_len", "output_len"] as const) {
    if (sp[key] < 0) return { message: `${base}: ${key} must be non-negative, got ${sp[key]}`, path: `${base}.${key}` };
  }
  const total = sp.num_unique_system_prompts * sp.num_users_per_system_prompt;
  if (total > MAX_EXPANDED_CLIENTS) {
    return {
      message: `${base}: ${sp.num_unique_system_prompts} system prompts x ${sp.num_users_per_system_prompt} users = ${total} clients exceeds maximum ${MAX_EXPANDED_CLIENTS}`,
      path: `${base}.num_users_per_system_prompt`,
    };
  }
  return null;
}

export interface InferencePerfExpansion {
  /** Time-weighted mean stage rate. */
  aggregateRate: number;
  category: "language" | "reasoning";
  clients: ClientSpec[];
}

/** Expands a validated inference-perf section. */
export function expandInferencePerf(ip: InferencePerfSpec): InferencePerfExpansion {
  const sp = ip.shared_prefix!;
  let weighted = 0;
  let totalDuration = 0;
  for (const s of ip.stages) {
    weighted += s.rate * s.duration;
    totalDuration += s.duration;
  }
  const windows =
    ip.stages.length > 1
      ? (() => {
          let t = 0;
          return ip.stages.map((s) => {
            const w = { start_us: t, end_us: t + s.duration * 1_000_000 };
            t = w.end_us;
            return w;
          });
        })()
      : null;
  const P = sp.num_unique_system_prompts;
  const U = sp.num_users_per_system_prompt;
  const clients: ClientSpec[] = [];
  for (let p = 0; p < P; p++) {
    for (let u = 0; u < U; u++) {
      const c = makeClient({
        id: `prompt-${p}-user-${u}`,
        tenant_id: `prompt-${p}`,
        slo_class: "batch",
        rate_fraction: 1 / (P * U),
        arrival: { process: "poisson" },
        input_distribution: dist("constant", { value: sp.question_len }),
        output_distribution: dist("constant", { value: sp.output_len }),
        prefix_group: `prompt-${p}`,
        prefix_length: sp.system_prompt_len,
      });
      if (windows !== null) c.lifecycle = { windows: windows.map((w) => ({ ...w })) };
      if (sp.enable_multi_turn_chat) {
        c.reasoning = {
          reason_ratio_distribution: dist("constant", { value: 0 }),
          multi_turn: { max_rounds: 5, think_time_us: 500000, context_growth: "accumulate" },
        };
      }
      clients.push(c);
    }
  }
  return {
    aggregateRate: weighted / totalDuration,
    category: sp.enable_multi_turn_chat ? "reasoning" : "language",
    clients,
  };
}
