// One benchmark case in its own process, so peak RSS belongs to that case alone.
import { simulate } from "../src/sim/simulate.js";
import type { RunInput } from "../src/config/runOptions.js";

const [kind = "default", nText = "1000"] = process.argv.slice(2);
const n = Number(nText);

function inputFor(kind: string, n: number): RunInput {
  const base: RunInput = { model: "meta-llama/llama-3.1-8b-instruct", rate: 100, numRequests: n, seed: 42 };
  switch (kind) {
    case "default":
    case "reportsampling":
      return base;
    case "cluster8":
    case "cluster8sampling":
      return { ...base, numInstances: 8, rate: 800, routingPolicy: "least-loaded" };
    case "weighted8":
      return { ...base, numInstances: 8, rate: 800, routingPolicy: "weighted" };
    case "multiturn":
      return {
        model: base.model,
        seed: 42,
        numRequests: n,
        workloadSpecObject: {
          version: "2",
          seed: 42,
          category: "reasoning",
          aggregate_rate: 20,
          num_requests: n,
          clients: [
            {
              id: "chat",
              rate_fraction: 1,
              arrival: { process: "poisson" },
              input_distribution: { type: "gaussian", params: { mean: 128, std_dev: 30, min: 32, max: 512 } },
              output_distribution: { type: "gaussian", params: { mean: 64, std_dev: 20, min: 16, max: 256 } },
              reasoning: { multi_turn: { max_rounds: 5, think_time_us: 500000, context_growth: "accumulate" } },
            },
          ],
        },
      };
    default:
      throw new Error(`unknown bench case ${kind}`);
  }
}

// The *sampling cases are their base case with the time series of `--report` recorded (at the
// default --report-interval), to measure what sampling costs.
const sampling = kind.endsWith("sampling");
const t0 = process.hrtime.bigint();
const res = await simulate(inputFor(kind, n), { recordTimeSeries: sampling });
const wall = Number(process.hrtime.bigint() - t0) / 1e9;
const rssMb = process.resourceUsage().maxRSS / 1024;
process.stdout.write(
  JSON.stringify({
    kind,
    n,
    wall,
    rssMb,
    completed: res.metrics.cluster.completed_requests,
    steps: res.run.instances.reduce((s, i) => s + i.stepCount, 0),
    samples: res.run.timeSeries?.timesUs.length ?? 0,
  }) + "\n",
);
