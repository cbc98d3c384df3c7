// The LoRA example plan (examples/experiments/lora-affinity.yaml), reduced: LoRA-aware routing
// loads adapters less often than queue-depth routing and keeps TTFT lower.
import { test } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { loadPlan } from "../../src/experiment/planParse.js";
import { simulate } from "../../src/sim/simulate.js";
import { silentLogger } from "../../src/util/log.js";

const REPO = path.resolve(import.meta.dirname, "..", "..", "..");

test("lora-affinity routing has fewer cold loads than queue-depth routing (reduced example)", async () => {
  const plan = loadPlan(path.join(REPO, "examples/experiments/lora-affinity.yaml"));
  assert.deepEqual(
    plan.configs.map((c) => c.label),
    [
      "rate=15,variant=queue-depth",
      "rate=15,variant=lora-affinity",
      "rate=30,variant=queue-depth",
      "rate=30,variant=lora-affinity",
    ],
  );
  const result = async (label: string) => {
    const cfg = plan.configs.find((c) => c.label === label)!;
    const res = await simulate({ ...cfg.input, numRequests: 400, seed: 42 }, { logger: silentLogger });
    const adapters = Object.values(res.metrics.cluster.adapters ?? {});
    return { loads: adapters.reduce((s, a) => s + a.load_count, 0), ttftP99: res.metrics.cluster.ttft_p99_ms };
  };
  const qd = await result("rate=30,variant=queue-depth");
  const aff = await result("rate=30,variant=lora-affinity");
  assert.ok(aff.loads > 0);
  assert.ok(aff.loads < qd.loads / 2, `lora-affinity ${aff.loads} cold loads vs queue-depth ${qd.loads}`);
  assert.ok(aff.ttftP99 < qd.ttftP99, `TTFT p99 ${aff.ttftP99} < ${qd.ttftP99}`);
});
