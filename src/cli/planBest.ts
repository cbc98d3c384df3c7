// `blis plan` for a rate (or the peak of a schedule): the search, the ranked table, plan.json,
// the winner's deployable settings and the HTML report.

import { loadCoefficientFile } from "../latency/coefficientFile.js";
import { BUNDLED_TRAINED_PHYSICS, BUNDLED_TRAINED_PHYSICS_CACHE } from "../util/paths.js";
import { kubernetesManifest, vllmCommands, type DeployInput } from "../plan/deploy.js";
import { planJson, type PlanJson } from "../plan/output.js";
import { runPlan } from "../plan/plan.js";
import { defaultRequests, type PlanQuestion, type PlanRuntime } from "../plan/question.js";
import { renderTable, summaryLine } from "../plan/render.js";
import type { CliIo } from "./io.js";

export type Put = (name: string, data: string) => void;

/** The repository vLLM would load: the bundled defaults' hf_repo for the model, else the name as given. */
export function hfRepo(model: string): string {
  const defaults = loadCoefficientFile(
    BUNDLED_TRAINED_PHYSICS,
    "bundled coefficients",
    BUNDLED_TRAINED_PHYSICS_CACHE,
  ).defaults;
  return defaults?.[model.toLowerCase()]?.hf_repo ?? model;
}

export function deployInput(q: PlanQuestion, j: PlanJson): DeployInput | null {
  if (j.best === null) return null;
  const row = j.candidates.find((c) => c.status === "found")!;
  return {
    hfRepo: hfRepo(String(q.base.model ?? "")),
    row,
    gpuMemoryUtilization: q.base.gpuMemoryUtilization ?? 0.9,
    blockSize: q.base.blockSizeInTokens ?? 16,
    maxModelLen: q.base.maxModelLen ?? 0,
  };
}

/** Returns the failure line (nothing feasible), or null. */
export async function bestCli(
  q: PlanQuestion,
  rt: PlanRuntime,
  io: CliIo,
  put: Put,
  scheduleFile?: string,
): Promise<string | null> {
  const schedule = scheduleFile !== undefined ? (await import("../plan/schedule.js")).loadSchedule(scheduleFile) : null;
  const question =
    schedule !== null
      ? { ...q, rate: schedule.peak, requests: q.base.numRequests ?? defaultRequests(schedule.peak) }
      : q;
  const res = await runPlan(question, rt);
  io.stderrLine(
    `plan: ${res.executed} simulations run, ${res.simulations - res.executed} reused from the output directory`,
  );
  for (const v of res.monotonicity.violations) {
    io.stderrLine(
      `warning: ${v.shape} met the SLOs at ${v.feasibleUnits} copies but not at ${v.infeasibleUnits}: feasibility is not monotone in the copies here, so its minimum may be off`,
    );
  }
  const j = planJson(res);
  let text = renderTable(j);
  const deploy = deployInput(question, j);
  if (deploy !== null) {
    put("deploy/vllm-serve.sh", vllmCommands(deploy));
    put("deploy/kubernetes.yaml", kubernetesManifest(deploy));
  }
  let extra: Record<string, unknown> = {};
  if (schedule !== null && res.best !== null) {
    const { planSchedule, renderSchedule } = await import("../plan/schedule.js");
    const s = await planSchedule(question, rt, res.best, schedule);
    extra = { schedule: s };
    text += "\n" + renderSchedule(s, j);
  }
  const full = { ...j, ...extra };
  put("plan.json", JSON.stringify(full, null, 2) + "\n");
  const { planReportHtml } = await import("../plan/report.js");
  put("report.html", planReportHtml(full));
  io.stdout(text + "\n" + summaryLine(j) + "\n");
  return j.best === null ? `nothing in the candidate space meets the SLOs: ${j.binding_constraint}` : null;
}
