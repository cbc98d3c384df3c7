// The spec a workload is generated from: inference-perf and ServeGen expansion, v1 upgrade and
// validation, then the client list with cohort members expanded.

import { UserError } from "../../util/errors.js";
import type { Logger } from "../../util/log.js";
import { cohortMemberCount, expandCohorts } from "../spec/cohorts.js";
import { positionSuffix, type PositionMap } from "../spec/decode.js";
import { expandInferencePerf, findInferencePerfFailure, MAX_EXPANDED_CLIENTS } from "../spec/inferencePerf.js";
import { loadServeGenClients, ServeGenError } from "../spec/servegen.js";
import type { ClientSpec, WorkloadSpec } from "../spec/types.js";
import { upgradeV1ToV2 } from "../spec/upgrade.js";
import { validateWorkloadSpec } from "../spec/validate.js";
import { fmtV } from "../util/format.js";

/**
 * Expansion, v1 upgrade and validation on our private copy of the spec (docs/behavior.md
 * "The workload spec").
 */
export function prepareSpec(s: WorkloadSpec, positions: PositionMap | undefined, logger: Logger | undefined): void {
  if (s.inference_perf !== undefined && s.clients.length === 0) {
    const failure = findInferencePerfFailure(s.inference_perf);
    if (failure !== null) {
      throw new UserError(
        `expanding inference-perf spec: validating inference-perf spec: ${failure.message}${positionSuffix(positions, failure.path)}`,
      );
    }
    const expansion = expandInferencePerf(s.inference_perf);
    s.clients = expansion.clients;
    // The stage rates are the ground truth: any other aggregate_rate would rescale every stage.
    if (s.aggregate_rate > 0 && s.aggregate_rate !== expansion.aggregateRate) {
      logger?.warn(
        `inference_perf: overriding aggregate_rate ${fmtV(s.aggregate_rate)} with the sum of the stage rates ${fmtV(expansion.aggregateRate)} (each stage runs at its own rate)`,
      );
    }
    s.aggregate_rate = expansion.aggregateRate;
    if (s.category === "") s.category = expansion.category;
  }
  if (s.servegen_data !== undefined && s.clients.length === 0) {
    try {
      s.clients = loadServeGenClients(
        s.servegen_data.path,
        s.servegen_data.span_start,
        s.servegen_data.span_end,
        logger,
      );
    } catch (err) {
      if (err instanceof ServeGenError) throw new UserError(`loading servegen data: ${err.message}`);
      throw err;
    }
  }
  upgradeV1ToV2(s, logger);
  validateWorkloadSpec(s, positions);
}

/** The spec's clients followed by the members of its cohorts, each with the run's timeout when one is given. */
export function expandedClients(s: WorkloadSpec, timeoutUs: number | undefined): ClientSpec[] {
  const members = cohortMemberCount(s.cohorts);
  if (s.clients.length + members > MAX_EXPANDED_CLIENTS) {
    throw new UserError(
      `workload expands to ${s.clients.length + members} clients; at most ${MAX_EXPANDED_CLIENTS} are supported`,
    );
  }
  // concat, not push(...): spreading 100,000s of members overflows the argument limit.
  const clients = s.clients.concat(expandCohorts(s.cohorts));
  if (timeoutUs !== undefined) for (const c of clients) c.timeout = timeoutUs;
  return clients;
}
