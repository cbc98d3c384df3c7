// Paths into a workload spec (`aggregate_rate`, `clients[0].arrival.cv`), as used by spec axes and
// variant `spec_overrides`.

export type SpecPath = (string | number)[];

export function parseSpecPath(text: string): SpecPath | null {
  const re = /^([A-Za-z_][A-Za-z0-9_]*)|^\.([A-Za-z_][A-Za-z0-9_]*)|^\[(\d+)\]/;
  const out: SpecPath = [];
  let rest = text.trim();
  if (rest === "") return null;
  let first = true;
  while (rest.length > 0) {
    const m = re.exec(rest);
    if (m === null) return null;
    if (m[1] !== undefined) {
      if (!first) return null;
      out.push(m[1]);
    } else if (m[2] !== undefined) out.push(m[2]);
    else out.push(Number(m[3]));
    if (first && m[1] === undefined) return null;
    first = false;
    rest = rest.slice(m[0].length);
  }
  return out;
}

/** Sets `value` at `p` inside `root` (mutates). Returns an error text when the path does not exist. */
export function setSpecPath(root: unknown, p: SpecPath, value: unknown): string | null {
  let cur: unknown = root;
  let walked = "";
  for (let i = 0; i < p.length; i++) {
    const step = p[i]!;
    const last = i === p.length - 1;
    if (typeof step === "number") {
      if (!Array.isArray(cur)) return `${walked || "the spec"} is not a list`;
      if (step >= cur.length)
        return `${walked}[${step}] does not exist (the list has ${cur.length} item${cur.length === 1 ? "" : "s"})`;
      if (last) cur[step] = value;
      else cur = cur[step];
      walked += `[${step}]`;
    } else {
      if (cur === null || typeof cur !== "object" || Array.isArray(cur))
        return `${walked || "the spec"} is not a mapping`;
      const o = cur as Record<string, unknown>;
      walked += walked === "" ? step : `.${step}`;
      if (last) o[step] = value;
      else {
        if (o[step] === undefined || o[step] === null) return `${walked} is not set in the base spec`;
        cur = o[step];
      }
    }
  }
  return null;
}
