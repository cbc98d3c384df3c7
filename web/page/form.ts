// The configuration form, built from the CLI's flag table (the worker sends it): curated sections
// for the common flags, every other flag under "More flags". Field names are the flag names, so
// the form, the URL and the command line use one vocabulary.

import type { FieldError, FlagInfo, Params, PlaygroundInfo } from "../shared/protocol.js";
import { SPEC_PARAM } from "../shared/pageParams.js";
import { byId, el } from "./dom.js";
import { scorerWeights } from "./scorers.js";

export const DEFAULT_MODEL = "meta-llama/llama-3.1-8b-instruct";

const SECTIONS: { title: string; names: string[] }[] = [
  { title: "Model and hardware", names: ["model", "hardware", "tp", "latency-model", "gpu-memory-utilization"] },
  {
    title: "Workload",
    names: [
      "workload",
      "rate",
      "num-requests",
      "seed",
      "prompt-tokens",
      "output-tokens",
      "prefix-tokens",
      "concurrency",
    ],
  },
  { title: "Cluster and routing", names: ["num-instances", "routing-policy", "routing-scorers"] },
  {
    title: "Scheduling and admission",
    names: ["scheduler", "priority-policy", "admission-policy", "token-bucket-capacity", "token-bucket-refill-rate"],
  },
  {
    title: "KV cache",
    names: [
      "total-kv-blocks",
      "block-size-in-tokens",
      "kv-cpu-blocks",
      "kv-offload-threshold",
      "kv-transfer-bandwidth",
    ],
  },
  { title: "Batching", names: ["max-num-seqs", "max-num-batched-tokens", "long-prefill-token-threshold"] },
];

const GROUP_TITLES: Record<string, string> = {
  model: "Model and latency",
  workload: "Workload",
  engine: "Engine",
  kv: "KV cache",
  cluster: "Cluster",
  policy: "Policies",
  output: "Output",
  extension: "Extensions",
};

type Control = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;

function options(select: HTMLSelectElement, def: string, values: readonly string[]): void {
  select.append(el("option", { value: "", text: def !== "" ? `default (${def})` : "default" }));
  for (const v of values) select.append(el("option", { value: v, text: v }));
}

function control(f: FlagInfo, info: PlaygroundInfo): Control {
  const id = `f-${f.name}`;
  const choices = f.name === "hardware" ? info.gpus : f.type === "bool" ? ["true", "false"] : info.choices[f.name];
  if (choices !== undefined) {
    const s = el("select", { id, name: f.name });
    options(s, f.name === "hardware" ? "from the model's defaults" : f.def, choices);
    return s;
  }
  const numeric = ["int", "int64", "float"].includes(f.type);
  const input = el("input", { id, name: f.name, type: "text", autocomplete: "off", spellcheck: "false" });
  if (numeric) input.inputMode = f.type === "float" ? "decimal" : "numeric";
  if (f.def !== "") input.placeholder = f.def;
  if (f.name === "model") input.setAttribute("list", "models");
  return input;
}

function field(f: FlagInfo, info: PlaygroundInfo): HTMLElement {
  const c = control(f, info);
  const help = el("small", { id: `help-${f.name}`, class: "help", text: f.help });
  const err = el("p", { id: `err-${f.name}`, class: "err", hidden: "" });
  c.setAttribute("aria-describedby", `help-${f.name} err-${f.name}`);
  const wrap = el(
    "div",
    { class: "field", "data-field": f.name },
    el("label", { for: c.id, text: f.name }),
    c,
    help,
    err,
  );
  if (f.name === "routing-scorers") wrap.append(scorerWeights(c as HTMLInputElement, info.scorers));
  return wrap;
}

/** Builds the form's fieldsets into #fields and the model list. */
export function buildForm(info: PlaygroundInfo): void {
  const root = byId("fields");
  root.append(el("datalist", { id: "models" }, ...info.models.map((m) => el("option", { value: m }))));
  const byName = new Map(info.flags.filter((f) => f.unavailable === "").map((f) => [f.name, f] as const));
  const placed = new Set<string>();
  for (const s of SECTIONS) {
    const fs = el("fieldset", {}, el("legend", { text: s.title }));
    for (const n of s.names) {
      const f = byName.get(n);
      if (f === undefined) continue;
      fs.append(field(f, info));
      placed.add(n);
    }
    if (s.title === "Workload") fs.append(specField());
    root.append(fs);
  }
  const more = el("details", { id: "more-flags" }, el("summary", { text: "More flags" }));
  for (const [g, title] of Object.entries(GROUP_TITLES)) {
    const rest = [...byName.values()].filter((f) => f.group === g && !placed.has(f.name));
    if (rest.length === 0) continue;
    const fs = el("fieldset", {}, el("legend", { text: title }));
    for (const f of rest) fs.append(field(f, info));
    more.append(fs);
  }
  root.append(more);
}

function specField(): HTMLElement {
  const ta = el("textarea", {
    id: `f-${SPEC_PARAM}`,
    name: SPEC_PARAM,
    rows: "6",
    spellcheck: "false",
    "aria-describedby": `help-${SPEC_PARAM} err-${SPEC_PARAM}`,
  });
  const file = el("input", { id: "spec-upload", type: "file", accept: ".yaml,.yml,text/yaml" });
  file.addEventListener("change", () => {
    const f = file.files?.[0];
    if (f === undefined) return;
    void f.text().then((t) => {
      ta.value = t;
      ta.dispatchEvent(new Event("input", { bubbles: true }));
    });
  });
  return el(
    "details",
    { class: "field spec", "data-field": SPEC_PARAM },
    el("summary", { text: "Workload spec YAML (replaces the workload flags)" }),
    el("label", { for: ta.id, text: "workload-spec (pasted)" }),
    ta,
    el("label", { for: file.id, class: "upload", text: "or upload a file" }),
    file,
    el("small", {
      id: `help-${SPEC_PARAM}`,
      class: "help",
      text: "Runs as --workload-spec workload.yaml; explicit --rate, --num-requests, --seed win over the spec's values.",
    }),
    el("p", { id: `err-${SPEC_PARAM}`, class: "err", hidden: "" }),
  );
}

function controls(): Control[] {
  return [...byId("fields").querySelectorAll<Control>("input[name], select[name], textarea[name]")];
}

/** The flags the form sets, in form order (empty fields are not given). */
export function formParams(): Params {
  const out: Params = [];
  for (const c of controls()) {
    const v = c instanceof HTMLTextAreaElement ? c.value : c.value.trim();
    if (v.trim() !== "") out.push([c.name, v]);
  }
  return out;
}

/** Sets the form from parameters; returns those that have no field. */
export function setForm(params: Params): Params {
  const byName = new Map(controls().map((c) => [c.name, c] as const));
  for (const c of byName.values()) c.value = "";
  const extra: Params = [];
  for (const [n, v] of params) {
    const c = byName.get(n);
    if (c === undefined) {
      extra.push([n, v]);
      continue;
    }
    if (c instanceof HTMLSelectElement && ![...c.options].some((o) => o.value === v))
      c.append(el("option", { value: v, text: v }));
    c.value = v;
    c.dispatchEvent(new Event("change"));
  }
  const spec = byName.get(SPEC_PARAM);
  if (spec !== undefined && spec.value !== "") (spec.closest("details") as HTMLDetailsElement).open = true;
  return extra;
}

/** Shows each message next to its field; those without one go to the general list. */
export function showErrors(errors: readonly FieldError[]): void {
  for (const p of byId("fields").querySelectorAll<HTMLElement>(".err")) {
    p.hidden = true;
    p.textContent = "";
  }
  for (const c of controls()) c.removeAttribute("aria-invalid");
  const general: string[] = [];
  for (const e of errors) {
    const slot = document.getElementById(`err-${e.field}`);
    const c = document.getElementById(`f-${e.field}`);
    if (e.field === "" || slot === null || c === null) {
      general.push(e.message);
      continue;
    }
    slot.textContent = e.message;
    slot.hidden = false;
    c.setAttribute("aria-invalid", "true");
    const d = c.closest("details");
    if (d !== null) d.open = true;
  }
  const box = byId("errors");
  box.replaceChildren(...general.map((m) => el("p", { text: m })));
  box.hidden = general.length === 0;
}
