// The playground page: builds the form from the worker's flag table, keeps the configuration in
// the URL (parameter names are `blis run` flag names), validates every change with the CLI's
// messages, and runs simulations in a Web Worker with progress and cancel.
// Test hooks: <body data-state> is "done" after a run, "invalid" when a run was refused;
// cards carry data-metric and data-value; <body data-sweep> is "done" after a sweep.

import type { Params, RunSummary } from "../shared/protocol.js";
import { PAGE_PARAMS } from "../shared/pageParams.js";
import { byId } from "./dom.js";
import { buildForm, DEFAULT_MODEL, formParams, setForm, showErrors } from "./form.js";
import { SimWorker } from "./workerClient.js";
import { ChartGroup } from "./charts.js";
import { renderCards, renderResult, summaryLine } from "./results.js";
import { renderCompare, type Pinned } from "./compare.js";
import { sweepControls } from "./sweepPanel.js";

const SWEEP_FIELDS = PAGE_PARAMS.filter((p) => p.startsWith("sweep-"));

interface State {
  checker: SimWorker;
  runner: SimWorker;
  /** Parameters in the URL without a field (shown as errors until removed). */
  extra: Params;
  current: Pinned | null;
  baseline: Pinned | null;
  running: boolean;
}

const charts = new ChartGroup();

function setState(s: string): void {
  document.body.dataset["state"] = s;
}

function status(text: string): void {
  byId("status").textContent = text;
}

/** Flags, the pasted spec and the sweep settings, as URL parameters. */
function allParams(st: State): Params {
  const sweep: Params = SWEEP_FIELDS.map((n) => [n, byId<HTMLInputElement>(n).value.trim()] as [string, string]).filter(
    ([, v]) => v !== "",
  );
  return [...formParams(), ...st.extra, ...sweep];
}

function writeUrl(params: Params): void {
  const q = new URLSearchParams(params).toString();
  history.replaceState(null, "", q === "" ? location.pathname : `?${q}`);
}

async function validate(st: State): Promise<boolean> {
  const params = allParams(st);
  writeUrl(params);
  const checked = await st.checker.check(params);
  showErrors(checked.errors);
  byId("command").textContent = checked.command;
  byId("workload-yaml").textContent = checked.workloadYaml;
  byId("yaml-box").hidden = checked.workloadYaml === "";
  return checked.errors.length === 0;
}

async function run(st: State): Promise<void> {
  if (st.running) return;
  const params = allParams(st);
  if (!(await validate(st))) {
    setState("invalid");
    status("Not run: fix the fields marked above.");
    return;
  }
  st.running = true;
  setState("running");
  byId<HTMLButtonElement>("cancel").disabled = false;
  const bar = byId<HTMLProgressElement>("progress");
  bar.value = 0;
  status("Running…");
  const t0 = performance.now();
  const out = await st.runner.run(params, "full", (p) => {
    bar.value = p.fraction;
    status(`Running… ${p.completed} requests completed, ${(p.clockUs / 1e6).toFixed(1)} s simulated`);
  });
  st.running = false;
  byId<HTMLButtonElement>("cancel").disabled = true;
  if (!out.ok) {
    if (out.errors[0]?.message === "cancelled") return;
    showErrors(out.errors);
    setState("invalid");
    status("Not run: " + (out.errors[0]?.message ?? "failed"));
    return;
  }
  bar.value = 1;
  show(st, { params, result: out.result });
  status(`${summaryLine(out.result)} Page time ${((performance.now() - t0) / 1000).toFixed(2)} s.`);
  setState("done");
}

function show(st: State, now: Pinned): void {
  st.current = now;
  renderResult(now.result, st.baseline?.result ?? null, charts);
  renderCompare(st.baseline, now);
  byId<HTMLButtonElement>("pin").disabled = false;
}

function cancel(st: State): void {
  if (!st.running) return;
  st.runner.terminate();
  st.runner = new SimWorker();
  st.running = false;
  byId<HTMLButtonElement>("cancel").disabled = true;
  byId<HTMLProgressElement>("progress").value = 0;
  status("Cancelled.");
  setState("cancelled");
}

function pin(st: State, on: boolean): void {
  st.baseline = on ? st.current : null;
  byId("unpin").hidden = !on;
  const r: RunSummary | undefined = st.current?.result;
  if (r !== undefined) renderCards(r, st.baseline?.result ?? null);
  renderCompare(st.baseline, st.current);
  status(on ? "Baseline pinned: change something and run again to compare." : "Baseline cleared.");
}

function wire(st: State): void {
  let timer = 0;
  const changed = (): void => {
    window.clearTimeout(timer);
    timer = window.setTimeout(() => void validate(st), 150);
  };
  byId("fields").addEventListener("input", changed);
  byId("fields").addEventListener("change", changed);
  byId("sweep-fields").addEventListener("input", changed);
  byId("config").addEventListener("submit", (ev) => {
    ev.preventDefault();
    void run(st);
  });
  byId("cancel").addEventListener("click", () => cancel(st));
  byId("reset").addEventListener("click", () => {
    st.extra = [];
    setForm([["model", DEFAULT_MODEL]]);
    for (const n of SWEEP_FIELDS) byId<HTMLInputElement>(n).value = "";
    changed();
  });
  byId("pin").addEventListener("click", () => pin(st, true));
  byId("unpin").addEventListener("click", () => pin(st, false));
  const copy = (text: string, what: string): void => {
    void navigator.clipboard?.writeText(text).then(
      () => status(`${what} copied.`),
      () => status(`Could not copy; select the ${what.toLowerCase()} instead.`),
    );
  };
  byId("copy-command").addEventListener("click", () => copy(byId("command").textContent ?? "", "Command line"));
  byId("copy-link").addEventListener("click", () =>
    copy(`${location.href.split("?")[0]}?${new URLSearchParams([...allParams(st), ["run", "1"]])}`, "Link"),
  );
  sweepControls(
    () => formParams(),
    () => validate(st),
  );
}

async function boot(): Promise<void> {
  const checker = new SimWorker();
  const st: State = { checker, runner: new SimWorker(), extra: [], current: null, baseline: null, running: false };
  const info = await checker.info;
  byId("loading").remove();
  buildForm(info);
  const url = [...new URLSearchParams(location.search).entries()];
  const autorun = url.some(([n, v]) => n === "run" && v !== "0" && v !== "");
  const given = url.filter(([n]) => n !== "run" && !SWEEP_FIELDS.includes(n));
  for (const [n, v] of url) if (SWEEP_FIELDS.includes(n)) byId<HTMLInputElement>(n).value = v;
  if (!given.some(([n]) => n === "model")) given.unshift(["model", DEFAULT_MODEL]);
  st.extra = setForm(given);
  wire(st);
  setState("ready");
  const ok = await validate(st);
  if (autorun) {
    if (ok) await run(st);
    else setState("invalid");
  }
}

void boot();
