// The sweep panel's buttons and settings (the sweep itself is sweep.ts).

import type { Params } from "../shared/protocol.js";
import { byId } from "./dom.js";
import { cancelSweep, renderSweep, runSweep, type SweepSettings } from "./sweep.js";

function num(id: string): number {
  const e = byId<HTMLInputElement>(id);
  const t = e.value.trim() !== "" ? e.value.trim() : e.placeholder;
  return Number(t);
}

/** The settings, or the first problem with them. */
function settings(): SweepSettings | string {
  const s: SweepSettings = {
    from: num("sweep-from"),
    to: num("sweep-to"),
    points: num("sweep-points"),
    requests: num("sweep-requests"),
    sloTtftMs: num("sweep-slo-ttft-p99-ms"),
    sloItlMs: num("sweep-slo-itl-p99-ms"),
  };
  if (!(s.from > 0) || !(s.to > s.from)) return "sweep-from and sweep-to must be rates with 0 < sweep-from < sweep-to";
  if (!Number.isInteger(s.points) || s.points < 2 || s.points > 40)
    return "sweep-points must be an integer from 2 to 40";
  if (!Number.isInteger(s.requests) || s.requests < 1) return "sweep-requests must be a positive integer";
  if (!(s.sloTtftMs > 0) || !(s.sloItlMs > 0)) return "the SLO limits must be positive numbers of ms";
  return s;
}

export function sweepControls(flags: () => Params, validate: () => Promise<boolean>): void {
  const runBtn = byId<HTMLButtonElement>("sweep-run");
  const cancelBtn = byId<HTMLButtonElement>("sweep-cancel");
  const err = byId("sweep-error");
  const st = byId("sweep-status");
  runBtn.addEventListener("click", () => {
    void (async () => {
      const s = settings();
      err.hidden = typeof s !== "string";
      err.textContent = typeof s === "string" ? `error: ${s}` : "";
      if (typeof s === "string" || !(await validate())) {
        document.body.dataset["sweep"] = "invalid";
        return;
      }
      document.body.dataset["sweep"] = "running";
      runBtn.disabled = true;
      cancelBtn.disabled = false;
      st.textContent = "Sweeping…";
      const t0 = performance.now();
      const r = await runSweep(
        flags(),
        s,
        (done, total) => (st.textContent = `Sweeping… ${done} of ${total} rates done`),
      );
      runBtn.disabled = false;
      cancelBtn.disabled = true;
      if (r === null) {
        st.textContent = "Sweep cancelled.";
        document.body.dataset["sweep"] = "cancelled";
      } else if (typeof r === "string") {
        err.textContent = r;
        err.hidden = false;
        st.textContent = "";
        document.body.dataset["sweep"] = "invalid";
      } else {
        const inst = Number(flags().find(([n]) => n === "num-instances")?.[1] ?? "1") || 1;
        renderSweep(r, s, inst);
        st.textContent = `Swept ${r.length} rates in ${((performance.now() - t0) / 1000).toFixed(1)} s.`;
        document.body.dataset["sweep"] = "done";
      }
    })();
  });
  cancelBtn.addEventListener("click", () => cancelSweep());
}
