// `blis models`: the models the bundled data knows, and which latency backends can run each.

import type { Command } from "commander";
import type { CliIo } from "./io.js";

export function registerModelsCommand(program: Command, io: CliIo): void {
  program
    .command("models")
    .description("list the bundled models: default GPU and TP, config.json, blackbox coefficients")
    .option("--json", "print JSON instead of a table")
    .addHelpText(
      "after",
      "\nA model with a config runs the default trained-physics backend and --latency-model roofline;\n" +
        "one with blackbox coefficients also runs --latency-model blackbox (or --vllm-version).\n" +
        "Any other Hugging Face model runs with --model-config-folder DIR --hardware GPU --tp N.",
    )
    .action(async (opts: { json?: boolean }) => {
      const { modelCatalog, renderModelCatalog } = await import("../config/latency/modelCatalog.js");
      const entries = modelCatalog();
      io.stdout(opts.json === true ? JSON.stringify(entries, null, 2) + "\n" : renderModelCatalog(entries));
    });
}
