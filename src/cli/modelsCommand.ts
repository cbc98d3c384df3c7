// `blis models`: the models the bundled data knows, and which latency backends can run each.

import type { Command } from "commander";
import type { CliIo } from "./io.js";

export function registerModelsCommand(program: Command, io: CliIo): void {
  program
    .command("models")
    .description("list the bundled models: default GPU and TP per latency model, config.json, blackbox coefficients")
    .option("--json", "print JSON instead of a table")
    .option("--check", "check every bundled model x GPU x latency model against the physical bounds")
    .addHelpText(
      "after",
      "\nDEFAULT is the GPU and TP that kernels, trained-physics and roofline use when --hardware and --tp\n" +
        "are not given; BLACKBOX DEFAULT is what --latency-model blackbox uses (the 2025 defaults.yaml, as BLIS).\n" +
        "A model with a config runs the default trained-physics backend and --latency-model roofline;\n" +
        "one with blackbox coefficients also runs --latency-model blackbox (or --vllm-version).\n" +
        "Any other Hugging Face model runs with --model-config-folder DIR --hardware GPU --tp N.\n" +
        "--check lists, for each model, GPU and latency model, the predicted prefill rate over the\n" +
        "dense-peak bound and the weight-read time over the batch-1 decode step (above 1: physically impossible).",
    )
    .action(async (opts: { json?: boolean; check?: boolean }) => {
      if (opts.check === true) {
        const { boundsCatalog, renderBoundsCatalog } = await import("../sim/boundsCatalog.js");
        const rows = await boundsCatalog();
        io.stdout(opts.json === true ? JSON.stringify(rows, null, 2) + "\n" : renderBoundsCatalog(rows));
        return;
      }
      const { modelCatalog, renderModelCatalog } = await import("../latency/backends/modelCatalog.js");
      const entries = modelCatalog();
      io.stdout(opts.json === true ? JSON.stringify(entries, null, 2) + "\n" : renderModelCatalog(entries));
    });
}
