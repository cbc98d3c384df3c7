// A helper under --routing-scorers: one weight per registered scorer, written into the flag's
// text ("name:weight,..."), which stays the value that is validated and run.

import { el } from "./dom.js";

function parse(text: string): Map<string, string> {
  const m = new Map<string, string>();
  for (const part of text.split(",")) {
    const [name, w] = part.split(":");
    if (name !== undefined && name.trim() !== "" && w !== undefined) m.set(name.trim(), w.trim());
  }
  return m;
}

export function scorerWeights(target: HTMLInputElement, scorers: readonly string[]): HTMLElement {
  const inputs = scorers.map((s) =>
    el("input", { id: `w-${s}`, type: "text", inputmode: "decimal", "data-scorer": s, autocomplete: "off" }),
  );
  const sync = (): void => {
    const text = target.value !== "" ? target.value : target.placeholder;
    const m = parse(text);
    for (const i of inputs) i.value = m.get(i.dataset["scorer"] ?? "") ?? "";
  };
  for (const i of inputs) {
    i.addEventListener("input", () => {
      target.value = inputs
        .filter((x) => x.value.trim() !== "" && Number(x.value) !== 0)
        .map((x) => `${x.dataset["scorer"]}:${x.value.trim()}`)
        .join(",");
      target.dispatchEvent(new Event("input", { bubbles: true }));
    });
  }
  target.addEventListener("change", sync);
  target.addEventListener("input", (ev) => {
    if (ev.isTrusted) sync();
  });
  sync();
  return el(
    "details",
    { class: "weights" },
    el("summary", { text: "Scorer weights (weighted routing)" }),
    el("div", { class: "weight-grid" }, ...scorers.map((s, k) => el("label", { for: `w-${s}` }, s, inputs[k]!))),
  );
}
