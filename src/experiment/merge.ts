// `blis sweep merge`: combines the output directories of sweep shards (`--shard I/N`) into one
// output directory, as if one sweep had run every run there. Runs are taken once each, by run key;
// the tables are then built by runSweep from the merged directory, exactly as for a local sweep.

import path from "node:path";
import { UserError } from "../util/errors.js";
import { JsonlLog } from "../util/jsonlLog.js";
import { planHashes, type SweepPlan } from "./plan.js";
import { indexRecords } from "./report.js";
import { OutDir, PLAN_FILE, RUNS_FILE, type RunRecord } from "./store.js";
import { sweepTasks } from "./sweep.js";
import { readInputFile, SPEC_FILE_LIMIT } from "../util/inputFile.js";

export interface MergeResult {
  /** Runs copied from the shards / already in the output directory / still missing. */
  imported: number;
  present: number;
  missing: number;
  total: number;
}

interface ShardState {
  format?: unknown;
  runs_hash?: unknown;
  source?: unknown;
}

/** The identity file of a shard directory; a UserError naming the directory when it is not one. */
export function readShardState(dir: string): ShardState {
  const file = path.join(dir, PLAN_FILE);
  let state: ShardState | null = null;
  try {
    state = JSON.parse(readInputFile(file, SPEC_FILE_LIMIT)) as ShardState;
  } catch {
    state = null;
  }
  if (state === null || typeof state !== "object" || state.format !== "blis-sweep/1") {
    throw new UserError(`${dir}: not the output directory of a sweep (no readable ${PLAN_FILE})`);
  }
  return state;
}

/** The plan file a shard directory was written for (plan.json `source`), or null. */
export function shardPlanSource(dir: string): string | null {
  const s = readShardState(dir).source;
  return typeof s === "string" ? s : null;
}

/**
 * Copies every run of `plan` found in the shard directories into `outDir` (created, or resumed when
 * it holds runs of the same plan). Every shard must hold runs of this plan. Returns notes via `say`.
 */
export function mergeShards(
  plan: SweepPlan,
  outDir: string,
  shardDirs: readonly string[],
  say: (line: string) => void,
): MergeResult {
  const hashes = planHashes(plan);
  for (const dir of shardDirs) {
    const state = readShardState(dir);
    if (state.runs_hash !== hashes.runs) {
      throw new UserError(
        `${path.join(dir, PLAN_FILE)}: its runs come from another plan than ${plan.source ?? plan.name}; merge only shards of one plan`,
      );
    }
  }
  const { out, notes } = OutDir.open(outDir, plan, hashes, false);
  for (const n of notes) say(`note: ${n}`);
  try {
    const tasks = sweepTasks(plan);
    const wanted = new Map(tasks.map((t) => [t.key, t]));
    const have = indexRecords(out.loadRecords());
    const present = tasks.filter((t) => have.has(t.key)).length;
    let imported = 0;
    for (const dir of shardDirs) {
      if (path.resolve(dir) === path.resolve(outDir)) continue;
      const log = new JsonlLog(
        path.join(dir, RUNS_FILE),
        (v: unknown): v is RunRecord => v !== null && typeof v === "object" && (v as { v?: unknown }).v === 1,
      );
      for (const [key, rec] of indexRecords(log.load())) {
        const task = wanted.get(key);
        if (task === undefined || have.has(key)) continue;
        const stored = out.append(rec);
        out.writeRunFiles(task.config, stored);
        have.set(key, stored);
        imported++;
      }
    }
    const finished = tasks.filter((t) => have.has(t.key)).length;
    return { imported, present, missing: tasks.length - finished, total: tasks.length };
  } finally {
    out.close();
  }
}
