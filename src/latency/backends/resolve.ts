// From run options to a resolved latency backend: flag checks, backend choice, resolution.

import type { FetchLike } from "../modelConfig.js";
import { UserError } from "../../util/errors.js";
import type { Logger } from "../../util/log.js";
import { parseParams } from "../../util/policyRegistry.js";
import { latencyBackends, type ResolvedLatency } from "./backend.js";
import "./builtins.js";
import { selectBackend } from "./select.js";
import { boundViolations, checkBounds } from "../physicsBounds.js";

/**
 * The run options the backends read (config's RunOptions has them all; a structural type keeps the
 * backends below config in the layer order, docs/architecture.md "Layers"). The backends' own
 * parameters are read from the same object by key, hence the index signature.
 */
export interface LatencyOptions {
  readonly [key: string]: unknown;
  readonly model: string;
  readonly hardware: string;
  readonly tp: number;
  readonly dp: number;
  readonly vllmVersion: string;
  readonly roofline: boolean;
  readonly latencyModel: string;
  readonly latencyCoeffs: string;
  readonly alphaCoeffs: number[];
  readonly betaCoeffs: number[];
  readonly modelConfigFolder: string;
  readonly hardwareConfig: string;
  readonly defaultsFilepath: string;
  readonly gpuMemoryUtilization: number;
  readonly enableExpertParallel: boolean;
  readonly moeCommBackend: string;
  readonly totalKvBlocks: number;
  readonly blockSizeInTokens: number;
  readonly maxModelLen: number;
}

/** The engine flags every backend reads, checked in flag order. */
function checkEngineFlags(o: LatencyOptions, explicit: ReadonlySet<string>): void {
  if (o.tp < 0) throw new UserError(`--tp must be >= 0, got ${o.tp}`);
  const u = o.gpuMemoryUtilization;
  if (!Number.isFinite(u) || u <= 0 || u > 1) {
    throw new UserError(`--gpu-memory-utilization must be a finite value in (0, 1.0], got ${u.toFixed(6)}`);
  }
  if (o.blockSizeInTokens <= 0) throw new UserError(`--block-size-in-tokens must be > 0, got ${o.blockSizeInTokens}`);
  if (o.maxModelLen < 0) throw new UserError(`--max-model-len must be >= 0, got ${o.maxModelLen}`);
  if (explicit.has("totalKvBlocks") && o.totalKvBlocks <= 0) {
    throw new UserError(`--total-kv-blocks must be > 0, got ${o.totalKvBlocks}`);
  }
}

/** Refuses the flags only trained-physics reads, naming all that were given, for a backend that would ignore them. */
function refuseTrainedPhysicsFlags(o: LatencyOptions, backend: string): void {
  const current: [boolean, string][] = [
    [o.dp !== 1, "--dp"],
    [o.enableExpertParallel, "--enable-expert-parallel"],
    [o.moeCommBackend !== "", "--moe-comm-backend"],
    [o.latencyCoeffs !== "", "--latency-coeffs"],
  ];
  const given = current.filter(([on]) => on).map(([, flag]) => flag);
  if (given.length > 0) {
    throw new UserError(
      `${given.join(", ")} need${given.length === 1 ? "s" : ""} --latency-model trained-physics (this run uses ${backend})`,
    );
  }
}

/**
 * Validates the model and engine flags the backends read, picks the backend and resolves it.
 */
export async function resolveLatencyBackend(
  o: LatencyOptions,
  explicit: ReadonlySet<string>,
  log: Logger,
  fetchImpl?: FetchLike,
  loraReservedBytes = 0,
): Promise<ResolvedLatency> {
  checkEngineFlags(o, explicit);
  const u = o.gpuMemoryUtilization;
  const alpha = explicit.has("alphaCoeffs") ? o.alphaCoeffs : null;
  const beta = explicit.has("betaCoeffs") ? o.betaCoeffs : null;
  const choice = selectBackend({
    latencyModel: explicit.has("latencyModel") ? o.latencyModel : null,
    roofline: o.roofline,
    vllmVersion: o.vllmVersion,
    alpha,
    beta,
  });
  if (o.dp < 1) throw new UserError(`--dp must be >= 1, got ${o.dp}`);
  if (choice.name === "blackbox" || choice.name === "seed-roofline") refuseTrainedPhysicsFlags(o, choice.name);
  const backend = latencyBackends.get(choice.name)!;
  const params = backend.params === undefined ? {} : parseParams(backend.params, o);
  const resolved = await backend.resolve(
    {
      model: o.model,
      hardware: o.hardware,
      tp: o.tp,
      dp: o.dp,
      vllmVersion: o.vllmVersion,
      alpha,
      beta,
      latencyCoeffs: o.latencyCoeffs,
      modelConfigFolder: o.modelConfigFolder,
      hardwareConfig: o.hardwareConfig,
      defaultsFilepath: o.defaultsFilepath,
      totalKvBlocks: explicit.has("totalKvBlocks") ? o.totalKvBlocks : null,
      defaultKvBlocks: o.totalKvBlocks,
      gpuMemoryUtilization: u,
      blockSize: o.blockSizeInTokens,
      maxModelLen: explicit.has("maxModelLen") && o.maxModelLen > 0 ? o.maxModelLen : null,
      enableExpertParallel: o.enableExpertParallel,
      moeCommBackend: o.moeCommBackend,
      implicit: choice.implicit,
      log,
      ...(fetchImpl ? { fetchImpl } : {}),
      ...(loraReservedBytes > 0 ? { loraReservedBytes } : {}),
    },
    params,
  );
  warnOnBounds(resolved, log);
  return resolved;
}

/** One warning per broken physical bound (decision: bounds warn, they do not refuse). */
function warnOnBounds(r: ResolvedLatency, log: Logger): void {
  if (r.bounds === undefined) return;
  const report = checkBounds(r.build(), r.bounds.arch, r.bounds.peaks, r.bounds.gpus);
  for (const v of boundViolations(report)) log.warn(`--latency-model ${r.backend} (${r.hardware} TP${r.tp}): ${v}`);
}
