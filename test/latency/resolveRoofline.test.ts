import { test } from "node:test";
import assert from "node:assert/strict";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConstructionError, UserError } from "../../src/util/errors.js";
import { silentLogger } from "../../src/util/log.js";
import { resolveModelConfig, type FetchLike } from "../../src/latency/modelConfig.js";
import { loadRooflineInputs, resolveRoofline } from "../../src/latency/resolveRoofline.js";
import type { StepRequestView } from "../../src/latency/model.js";
import { DATA_DIR, recordingLogger } from "./helpers.js";

const LLAMA_TEXT = readFileSync(join(DATA_DIR, "model_configs", "llama-3.1-8b-instruct", "config.json"), "utf8");

interface Call {
  url: string;
  headers: Record<string, string>;
}

/** A fetch that must not be called. */
const noFetch: FetchLike = async (url) => {
  throw new Error(`unexpected fetch of ${url}`);
};

function fakeFetch(respond: (url: string) => { status: number; body?: string } | Error): {
  fetchImpl: FetchLike;
  calls: Call[];
} {
  const calls: Call[] = [];
  const fetchImpl: FetchLike = async (url, init) => {
    calls.push({ url, headers: { ...init.headers } });
    const r = respond(url);
    if (r instanceof Error) throw r;
    return {
      ok: r.status >= 200 && r.status < 300,
      status: r.status,
      statusText: r.status === 200 ? "OK" : "",
      text: async () => r.body ?? "",
    };
  };
  return { fetchImpl, calls };
}

function withTempDir(fn: (dir: string) => Promise<void>): () => Promise<void> {
  return async () => {
    const dir = mkdtempSync(join(tmpdir(), "blis-roofline-"));
    try {
      await fn(dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}

async function userErrorMessage(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof UserError, `expected UserError, got ${String(e)}`);
    return (e as Error).message;
  }
  assert.fail("expected a UserError");
}

const prefill512: StepRequestView = { pi: 0, inputLen: 512, outputLen: 10, numNewTokens: 512 };

test("bundled config found for meta-llama/llama-3.1-8b-instruct (no network)", async () => {
  const r = await resolveModelConfig({
    model: "meta-llama/llama-3.1-8b-instruct",
    defaultsDir: DATA_DIR,
    logger: silentLogger,
    fetchImpl: noFetch,
  });
  assert.equal(r.origin, "bundled");
  assert.equal(r.path, join(DATA_DIR, "model_configs", "llama-3.1-8b-instruct", "config.json"));
  assert.equal(r.config.hiddenSize, 4096);
});

test("resolveRoofline end to end with bundled data: reference table values", async () => {
  const opts = {
    model: "meta-llama/llama-3.1-8b-instruct",
    hardware: "H100",
    defaultsDir: DATA_DIR,
    alpha: [0, 0, 0],
    logger: silentLogger,
    fetchImpl: noFetch,
  };
  const m2 = await resolveRoofline({ ...opts, tp: 2 });
  assert.equal(m2.stepTime([prefill512], 1), 8033);
  const m1 = await resolveRoofline({ ...opts, tp: 1 });
  assert.equal(m1.stepTime([prefill512], 1), 12367);
  const inputs = await loadRooflineInputs({ ...opts, tp: 1 });
  assert.equal(inputs.hardwareConfigPath, join(DATA_DIR, "hardware_config.json"));
  assert.equal(inputs.modelConfigOrigin, "bundled");
});

test("resolveRoofline: unknown GPU and TP 0 errors", async () => {
  const opts = {
    model: "meta-llama/llama-3.1-8b-instruct",
    defaultsDir: DATA_DIR,
    alpha: [0, 0, 0],
    logger: silentLogger,
    fetchImpl: noFetch,
  };
  assert.equal(
    await userErrorMessage(resolveRoofline({ ...opts, hardware: "L40S", tp: 1 })),
    'Failed to load hardware config: GPU "L40S" not found in hardware config (available: [A100-80 A100-SXM H100])',
  );
  await assert.rejects(
    resolveRoofline({ ...opts, hardware: "H100", tp: 0 }),
    (e: unknown) => e instanceof ConstructionError && e.message === "latency model: roofline requires TP > 0, got 0",
  );
});

test("resolveRoofline logs the MoE warning for mixtral", async () => {
  const { logger, lines } = recordingLogger();
  await resolveRoofline({
    model: "mistralai/mixtral-8x7b-v0.1",
    hardware: "H100",
    tp: 2,
    defaultsDir: DATA_DIR,
    alpha: [0, 0, 0],
    logger,
    fetchImpl: noFetch,
  });
  const warns = lines.filter((l) => l.startsWith("level=warn"));
  assert.equal(warns.length, 1);
  assert.match(warns[0]!, /mixture-of-experts/);
});

test(
  "explicit --model-config-folder wins; missing or bad file is a one-line error",
  withTempDir(async (dir) => {
    const folder = join(dir, "cfg");
    mkdirSync(folder);
    writeFileSync(join(folder, "config.json"), JSON.stringify({ ...JSON.parse(LLAMA_TEXT), num_hidden_layers: 16 }));
    const r = await resolveModelConfig({
      model: "meta-llama/llama-3.1-8b-instruct",
      modelConfigFolder: folder,
      defaultsDir: DATA_DIR,
      logger: silentLogger,
      fetchImpl: noFetch,
    });
    assert.equal(r.origin, "explicit");
    assert.equal(r.config.numLayers, 16);

    const empty = join(dir, "empty");
    mkdirSync(empty);
    assert.equal(
      await userErrorMessage(
        resolveModelConfig({
          model: "x/y",
          modelConfigFolder: empty,
          defaultsDir: DATA_DIR,
          logger: silentLogger,
          fetchImpl: noFetch,
        }),
      ),
      `Failed to load model config: read HF config "${join(empty, "config.json")}": no such file or directory`,
    );
    writeFileSync(join(empty, "config.json"), "{\n");
    const msg = await userErrorMessage(
      resolveModelConfig({
        model: "x/y",
        modelConfigFolder: empty,
        defaultsDir: DATA_DIR,
        logger: silentLogger,
        fetchImpl: noFetch,
      }),
    );
    assert.match(msg, /^Failed to load model config: .*config\.json: parse HF config JSON: /);
    assert.ok(!msg.includes("\n"));
  }),
);

test(
  "unbundled model, download fails → one-line UserError naming --model-config-folder",
  withTempDir(async (dir) => {
    const failures: Array<{ status: number } | Error> = [
      new TypeError("fetch failed"),
      { status: 404 },
      { status: 401 },
      { status: 200 }, // body is not a config.json
    ];
    for (const failure of failures) {
      const { fetchImpl, calls } = fakeFetch(() =>
        failure instanceof Error ? failure : { status: failure.status, body: "<html>\nNot a config\n</html>" },
      );
      const msg = await userErrorMessage(
        resolveModelConfig({
          model: "acme/unknown-model-7b",
          defaultsDir: dir,
          logger: silentLogger,
          fetchImpl,
          env: {},
        }),
      );
      const expectedPath = join(dir, "model_configs", "unknown-model-7b", "config.json");
      assert.equal(calls.length, 1);
      assert.equal(calls[0]!.url, "https://huggingface.co/acme/unknown-model-7b/resolve/main/config.json");
      assert.ok(!msg.includes("\n"), msg);
      assert.ok(msg.includes("acme/unknown-model-7b"), msg);
      assert.ok(msg.includes("--model-config-folder"), msg);
      assert.ok(msg.includes(expectedPath), msg);
      if (failure instanceof Error) assert.match(msg, /\(fetch failed\)/);
      else if (failure.status === 401) assert.match(msg, /HTTP 401.*set HF_TOKEN/);
      else if (failure.status === 404) assert.match(msg, /HTTP 404/);
      else assert.match(msg, /not a HuggingFace config\.json/);
      assert.equal(existsSync(expectedPath), false, "nothing is saved on failure");
    }
  }),
);

test(
  "download timeout → one-line UserError",
  withTempDir(async (dir) => {
    const hanging: FetchLike = (_url, init) =>
      new Promise((_resolve, reject) => {
        init.signal.addEventListener("abort", () => reject(init.signal.reason));
      });
    const msg = await userErrorMessage(
      resolveModelConfig({
        model: "acme/slow",
        defaultsDir: dir,
        logger: silentLogger,
        fetchImpl: hanging,
        timeoutMs: 30,
        env: {},
      }),
    );
    assert.match(msg, /timed out after 0\.03 s/);
    assert.match(msg, /--model-config-folder/);
  }),
);

test(
  "download succeeds → saved into <defaults dir>/model_configs/<name> and used; HF_TOKEN sent; hf_repo used",
  withTempDir(async (dir) => {
    const { fetchImpl, calls } = fakeFetch(() => ({ status: 200, body: LLAMA_TEXT }));
    cpSync(join(DATA_DIR, "hardware_config.json"), join(dir, "hardware_config.json"));
    const { logger, lines } = recordingLogger();
    const m = await resolveRoofline({
      model: "acme/llama-clone",
      hardware: "H100",
      tp: 2,
      defaultsDir: dir,
      hfRepo: "Acme/Llama-Clone-8B",
      alpha: [0, 0, 0],
      logger,
      fetchImpl,
      env: { HF_TOKEN: "hf_secret" },
    });
    assert.equal(m.stepTime([prefill512], 1), 8033);
    assert.equal(calls.length, 1);
    assert.equal(calls[0]!.url, "https://huggingface.co/Acme/Llama-Clone-8B/resolve/main/config.json");
    assert.equal(calls[0]!.headers["Authorization"], "Bearer hf_secret");
    const saved = join(dir, "model_configs", "llama-clone", "config.json");
    assert.equal(readFileSync(saved, "utf8"), LLAMA_TEXT);
    assert.ok(lines.some((l) => l.includes("Saved model config")));
    assert.ok(!lines.some((l) => l.includes("hf_secret")), "the token is never logged");

    // Second run: the saved copy is used, no network.
    const again = await resolveModelConfig({
      model: "acme/llama-clone",
      defaultsDir: dir,
      logger: silentLogger,
      fetchImpl: noFetch,
    });
    assert.equal(again.origin, "bundled");
  }),
);

test(
  "no HF_TOKEN → no Authorization header; an invalid local file is replaced by the download",
  withTempDir(async (dir) => {
    const folder = join(dir, "model_configs", "m");
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, "config.json"), '{"vocab_size": 5}');
    const { fetchImpl, calls } = fakeFetch(() => ({ status: 200, body: LLAMA_TEXT }));
    for (const env of [{}, { HF_TOKEN: "" }]) {
      writeFileSync(join(folder, "config.json"), '{"vocab_size": 5}');
      const r = await resolveModelConfig({ model: "org/m", defaultsDir: dir, logger: silentLogger, fetchImpl, env });
      assert.equal(r.origin, "downloaded");
      assert.equal(r.config.numLayers, 32);
    }
    assert.equal(calls.length, 2);
    for (const c of calls) assert.equal(c.headers["Authorization"], undefined);
    assert.equal(calls[0]!.url, "https://huggingface.co/org/m/resolve/main/config.json");
  }),
);

test(
  "a download that cannot be saved is still used (warning)",
  withTempDir(async (dir) => {
    // model_configs is a file, so the folder cannot be created.
    writeFileSync(join(dir, "model_configs"), "not a directory");
    const { fetchImpl } = fakeFetch(() => ({ status: 200, body: LLAMA_TEXT }));
    const { logger, lines } = recordingLogger();
    const r = await resolveModelConfig({ model: "org/m", defaultsDir: dir, logger, fetchImpl, env: {} });
    assert.equal(r.origin, "downloaded");
    assert.equal(r.config.hiddenSize, 4096);
    assert.ok(lines.some((l) => l.startsWith("level=warn") && l.includes("Could not save")));
  }),
);

test(
  "missing hardware file is a one-line UserError",
  withTempDir(async (dir) => {
    const msg = await userErrorMessage(
      resolveRoofline({
        model: "meta-llama/llama-3.1-8b-instruct",
        hardware: "H100",
        tp: 1,
        defaultsDir: DATA_DIR,
        hardwareConfigPath: join(dir, "hw.json"),
        alpha: [0, 0, 0],
        logger: silentLogger,
        fetchImpl: noFetch,
      }),
    );
    assert.equal(
      msg,
      `Failed to load hardware config: read hardware config "${join(dir, "hw.json")}": no such file or directory`,
    );
  }),
);
