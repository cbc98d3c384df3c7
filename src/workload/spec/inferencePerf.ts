// inference-perf compact format (docs/behavior.md#w9): P system prompts × U users become P·U
// poisson clients per stage. Each stage's clients are active only in that stage's window and
// share that stage's rate, so stages run at their own rates (deviates from seed-era BLIS, which ran
// every stage at the time-weighted mean rate).

import { fmtF } from "../util/format.js";
import {
  dist,
  makeClient,
  type ClientSpec,
  type InferencePerfSpec,
  type SharedPrefixSpec,
  type StageSpec,
  type WindowSpec,
} from "./types.js";

export interface InferencePerfFailure {
  message: string;
  path: string;
}

/** Above this many clients the expansion is refused (memory guard; not in the reference). */
export const MAX_EXPANDED_CLIENTS = 1_000_000;

export function findInferencePerfFailure(ip: InferencePerfSpec): InferencePerfFailure | null {
  if (ip.stages.length === 0)
    return { message: "inference_perf: at least one stage required", path: "inference_perf.stages" };
  for (let i = 0; i < ip.stages.length; i++) {
    const s = ip.stages[i]!;
    const path = `inference_perf.stages[${i}]`;
    if (s.duration <= 0)
      return {
        message: `inference_perf.stages[${i}]: duration must be positive, got ${s.duration}`,
        path: `${path}.duration`,
      };
    if (!Number.isFinite(s.rate) || s.rate <= 0) {
      return {
        message: `inference_perf.stages[${i}]: rate must be a finite positive number, got ${fmtF(s.rate)}`,
        path: `${path}.rate`,
      };
    }
  }
  const sp = ip.shared_prefix;
  if (sp === undefined) return { message: "inference_perf: shared_prefix is required", path: "inference_perf" };
  const base = "inference_perf.shared_prefix";
  if (sp.num_unique_system_prompts <= 0) {
    return {
      message: `${base}: num_unique_system_prompts must be positive, got ${sp.num_unique_system_prompts}`,
      path: `${base}.num_unique_system_prompts`,
    };
  }
  if (sp.num_users_per_system_prompt <= 0) {
    return {
      message: `${base}: num_users_per_system_prompt must be positive, got ${sp.num_users_per_system_prompt}`,
      path: `${base}.num_users_per_system_prompt`,
    };
  }
  for (const key of ["system_prompt_len", "question_len", "output_len"] as const) {
    if (sp[key] < 0) return { message: `${base}: ${key} must be non-negative, got ${sp[key]}`, path: `${base}.${key}` };
  }
  const total = sp.num_unique_system_prompts * sp.num_users_per_system_prompt * ip.stages.length;
  if (total > MAX_EXPANDED_CLIENTS) {
    return {
      message: `${base}: ${sp.num_unique_system_prompts} system prompts x ${sp.num_users_per_system_prompt} users x ${ip.stages.length} stages = ${total} clients exceeds maximum ${MAX_EXPANDED_CLIENTS}`,
      path: `${base}.num_users_per_system_prompt`,
    };
  }
  return null;
}

export interface InferencePerfExpansion {
  /** Sum of the stage rates (see expandInferencePerf). */
  aggregateRate: number;
  category: "language" | "reasoning";
  clients: ClientSpec[];
}

/** Multi-turn chat as BLIS runs it for inference-perf: fixed-length rounds, no context growth. */
const MULTI_TURN_ROUNDS = 5;
const MULTI_TURN_THINK_TIME_US = 500_000;

/** Stage i is active over [Σ_{j<i} d_j, Σ_{j≤i} d_j) seconds, in ticks. */
export function stageWindows(stages: readonly StageSpec[]): WindowSpec[] {
  let t = 0;
  return stages.map((s) => {
    const w = { start_us: t, end_us: t + s.duration * 1_000_000 };
    t = w.end_us;
    return w;
  });
}

/**
 * Expands a validated inference-perf section into P·U clients per stage, stage by stage.
 *
 * Rates: the generator splits aggregate_rate over all clients in proportion to rate_fraction
 * (docs/behavior.md "Arrivals"). With rate_fraction = stage rate / (P·U) and aggregate_rate = Σ
 * stage rates, each client of stage i runs at rate_i / (P·U); stages never overlap, so exactly P·U
 * clients are active at any time and the total is rate_i. A one-stage spec gets a window too, so
 * every expansion ends at the end of its last stage without num_requests or a horizon.
 */
export function expandInferencePerf(ip: InferencePerfSpec): InferencePerfExpansion {
  const sp = ip.shared_prefix!;
  const windows = stageWindows(ip.stages);
  const perStage = sp.num_unique_system_prompts * sp.num_users_per_system_prompt;
  // Single-stage IDs stay `prompt-<p>-user-<u>` as before; several stages need a stage tag.
  const stageTag = (i: number): string => (ip.stages.length > 1 ? `stage-${i}-` : "");
  const clients: ClientSpec[] = [];
  let aggregateRate = 0;
  ip.stages.forEach((stage, i) => {
    aggregateRate += stage.rate;
    for (let p = 0; p < sp.num_unique_system_prompts; p++) {
      for (let u = 0; u < sp.num_users_per_system_prompt; u++) {
        clients.push(stageClient(sp, `${stageTag(i)}prompt-${p}-user-${u}`, p, stage.rate / perStage, windows[i]!));
      }
    }
  });
  return { aggregateRate, category: sp.enable_multi_turn_chat ? "reasoning" : "language", clients };
}

/**
 * The stages as rate schedules (`convert inference-perf --rate-schedule`): P·U clients
 * `prompt-<p>-user-<u>`, each with a step schedule of stage rate / (P·U) from each stage's start,
 * ending at 0 after the last stage (which ends generation there, like the stage windows).
 */
export function expandInferencePerfScheduled(ip: InferencePerfSpec): Omit<InferencePerfExpansion, "aggregateRate"> {
  const sp = ip.shared_prefix!;
  const windows = stageWindows(ip.stages);
  const perStage = sp.num_unique_system_prompts * sp.num_users_per_system_prompt;
  const schedule = ip.stages.map((s, i) => ({ at_s: windows[i]!.start_us / 1_000_000, rate: s.rate / perStage }));
  schedule.push({ at_s: windows[windows.length - 1]!.end_us / 1_000_000, rate: 0 });
  const clients: ClientSpec[] = [];
  for (let p = 0; p < sp.num_unique_system_prompts; p++) {
    for (let u = 0; u < sp.num_users_per_system_prompt; u++) {
      const c = stageClient(sp, `prompt-${p}-user-${u}`, p, 0, null);
      c.rate_schedule = schedule.map((pt) => ({ ...pt }));
      clients.push(c);
    }
  }
  return { category: sp.enable_multi_turn_chat ? "reasoning" : "language", clients };
}

function stageClient(
  sp: SharedPrefixSpec,
  id: string,
  prompt: number,
  rateFraction: number,
  window: WindowSpec | null,
): ClientSpec {
  const c = makeClient({
    id,
    tenant_id: `prompt-${prompt}`,
    slo_class: "batch",
    rate_fraction: rateFraction,
    arrival: { process: "poisson" },
    input_distribution: dist("constant", { value: sp.question_len }),
    output_distribution: dist("constant", { value: sp.output_len }),
    // The group is per system prompt, not per stage: every stage sends the same system prompts.
    prefix_group: `prompt-${prompt}`,
    prefix_length: sp.system_prompt_len,
    ...(window === null ? {} : { lifecycle: { windows: [{ ...window }] } }),
  });
  if (sp.enable_multi_turn_chat) {
    // inference-perf resends a constant-length question each turn (no accumulated history),
    // after the shared system prompt; context_growth stays empty.
    c.reasoning = {
      reason_ratio_distribution: dist("constant", { value: 0 }),
      multi_turn: { max_rounds: MULTI_TURN_ROUNDS, think_time_us: MULTI_TURN_THINK_TIME_US, context_growth: "" },
    };
  }
  return c;
}
