// The layers of src/, lowest first (docs/architecture.md "Layers"): .dependency-cruiser.cjs turns
// them into import rules, test/architecture/layers.test.ts checks that every folder has one.
module.exports = {
  LAYERS: [
    ["util"],
    ["engine"],
    ["core"],
    ["kv", "latency", "policy", "workload", "lora", "speculative"],
    ["instance", "infra"],
    ["cluster", "gateway", "trace", "autoscale", "pd"],
    ["metrics", "config", "features", "plugin", "saturation"],
    ["sim"],
    ["experiment", "optimize", "report", "calibration", "observe", "queue", "plan"],
    ["cli"],
  ],
};
