// `blis plan --fleet`: the highest rate a given fleet sustains within the SLOs.

import { fleetCapacity, parseFleet } from "../plan/fleet.js";
import { gpuPrice, tableLabel } from "../plan/prices.js";
import { probeGpu } from "../plan/probe.js";
import type { PlanQuestion, PlanRuntime } from "../plan/question.js";
import { gpusOf } from "../plan/shapes.js";
import { seedRuleText } from "../plan/slo.js";
import { UserError } from "../util/errors.js";
import type { CliIo } from "./io.js";
import type { Put } from "./planBest.js";

/** Returns the failure line (not even the lowest rate met the SLOs), or null. */
export async function fleetCli(
  text: string,
  q: PlanQuestion,
  rt: PlanRuntime,
  io: CliIo,
  put: Put,
): Promise<string | null> {
  const fleet = parseFleet(text, q);
  const price = gpuPrice(q.prices, fleet.shape.gpu);
  const probe = await probeGpu(q.base, fleet.shape.gpu, fleet.shape.tp);
  if (!probe.ok) throw new UserError(`--fleet ${text}: ${probe.reason}`);
  const res = await fleetCapacity(q, rt, fleet, q.base.rate ?? (q.rate > 0 ? q.rate : 1));
  const gpus = gpusOf(fleet.shape, fleet.copies);
  const cost = Math.round(gpus * price * 100) / 100;
  const label = tableLabel(q.prices);
  put(
    "plan.json",
    JSON.stringify(
      {
        format: "blis-plan-fleet/1",
        price_table: {
          name: q.prices.name,
          date: q.prices.date,
          currency: q.prices.currency,
          file: q.prices.file,
          label,
        },
        slos: q.slos.map((s) => ({ key: s.key, limit: s.limit })),
        slo_holds: seedRuleText(q.seedRule),
        gpus,
        cost_per_hour: cost,
        ...res,
      },
      null,
      2,
    ) + "\n",
  );
  const lines = [
    `Fleet ${fleet.copies} x ${fleet.shape.id} (${gpus} GPUs, ${q.prices.currency} ${cost.toFixed(2)}/h from ${label})`,
    "rate     met  why not",
  ];
  for (const p of [...res.probes].sort((a, b) => a.rate - b.rate))
    lines.push(`${String(p.rate).padEnd(8)} ${p.feasible ? "yes" : "no "}  ${p.reason}`);
  if (res.monotonicity_violations > 0)
    lines.push(`warning: ${res.monotonicity_violations} rates met the SLOs above a rate that did not`);
  const summary =
    res.sustained === null
      ? `plan: the fleet meets the SLOs at no rate tried: ${res.binding}`
      : `plan: the fleet sustains ${res.sustained} req/s within the SLOs${res.failed !== null ? ` (fails at ${res.failed}: ${res.binding})` : " (the highest rate tried)"}`;
  io.stdout(lines.join("\n") + "\n\n" + summary + "\n");
  return res.sustained === null ? `the fleet meets the SLOs at no rate tried: ${res.binding}` : null;
}
