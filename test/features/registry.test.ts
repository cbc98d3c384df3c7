// The feature registry (src/features/registry.ts) and the "one folder + one registration line"
// promise of docs/extending.md "Adding a feature": a feature registered at run time gets its flag,
// --help line, bundle key, compatibility check and results without any other file being edited.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { z } from "zod";
import { FeatureRegistry, features } from "../../src/features/registry.js";
import type {
  Deployment,
  Feature,
  FeatureContext,
  LatencyServices,
  PolicyServices,
} from "../../src/features/feature.js";
import { RequestLedger } from "../../src/core/ledger.js";
import type { ClusterExtension } from "../../src/cluster/extension.js";
import { UserError } from "../../src/util/errors.js";
import { silentLogger } from "../../src/util/log.js";
import { cli, clusterBlock } from "../helpers/cli.js";
import { req, run, simConfig } from "../helpers/sim.js";

const DEPLOYMENT: Deployment = {
  numInstances: 1,
  hardware: "",
  tp: 1,
  totalKvBlocks: 100,
  blockSize: 16,
  horizon: Infinity,
  model: "m",
  backend: "blackbox",
  seed: 42n,
  admissionPolicy: "always-admit",
  maxRunning: 256,
};
const NO_LATENCY: LatencyServices = {
  targetLayers: () => Promise.reject(new Error("no model config")),
  latencyFor: () => Promise.reject(new Error("no backend")),
  modelConfig: () => Promise.reject(new Error("no model config")),
  resolveWith: () => Promise.reject(new Error("no backend")),
};
const NO_POLICIES: PolicyServices = {
  bind: () => () => {
    throw new Error("no policies");
  },
  routingPolicy: () => () => {
    throw new Error("no router");
  },
  cacheSignalDelay: 0,
};
const CONTEXT: FeatureContext = {
  explicit: new Set(),
  log: silentLogger,
  defaultsFile: { path: "defaults.yaml", block: () => undefined },
  deployment: DEPLOYMENT,
  latency: NO_LATENCY,
  policies: NO_POLICIES,
  workload: { sloTargets: {} },
};
const ENDED = { users: new RequestLedger(), cluster: run(simConfig(), [req("r", 0, 16, 2)]).metrics.cluster, end: 0 };
const START = {
  instances: [],
  buildInstance: () => assert.fail("the probe feature builds no instance"),
  trace: null,
  ledger: new RequestLedger(),
  log: silentLogger,
};

const params = z.object({
  probeEnabled: z.boolean().default(false),
  probeLevel: z.number().int().default(3),
});
type ProbeParams = z.infer<typeof params>;
interface ProbeSettings {
  level: number;
  instances: number;
}

/** A feature with an on/off option and a checked level; `calls` counts what the registry calls. */
function probeFeature(over: Partial<Feature<ProbeParams, ProbeSettings>> = {}): {
  feature: Feature<ProbeParams, ProbeSettings>;
  calls: { validate: number; settings: ProbeParams[] };
} {
  const calls = { validate: 0, settings: [] as ProbeParams[] };
  const feature: Feature<ProbeParams, ProbeSettings> = {
    name: "level-probe",
    description: "prints its level and the instance count",
    params,
    flags: [
      {
        key: "probeEnabled",
        flag: "--probe-enabled",
        type: "bool",
        group: "output",
        help: "turns the level probe on",
        bundle: "probe.enabled",
      },
      {
        key: "probeLevel",
        flag: "--probe-level",
        type: "int",
        group: "output",
        help: "the level probe's level",
        bundle: "probe.level",
      },
    ],
    validate(p) {
      calls.validate++;
      if (p.probeLevel < 1 || p.probeLevel > 5)
        throw new UserError(`--probe-level must be in 1..5, got ${p.probeLevel}`);
    },
    settings(p, { deployment }) {
      calls.settings.push(p);
      return p.probeEnabled ? { level: p.probeLevel, instances: deployment.numInstances } : null;
    },
    start(s) {
      return { extension: null, results: () => ({ level: s.level, instances: s.instances }) };
    },
    ...over,
  };
  return { feature, calls };
}

/** Runs `body` with `feature` registered in the global registry, unregistered afterwards. */
async function withRegistered<P, S>(feature: Feature<P, S>, body: () => Promise<void>): Promise<void> {
  features.register(feature);
  try {
    await body();
  } finally {
    features.unregister(feature.name);
  }
}

const RUN = [
  "run",
  "--model",
  "meta-llama/llama-3.1-8b-instruct",
  "--num-instances",
  "2",
  "--rate",
  "20",
  "--num-requests",
  "30",
];
const PD = ["--prefill-instances", "1", "--decode-instances", "1"];

test("a feature name registers once; a second registration is refused and the first stays", () => {
  const r = new FeatureRegistry();
  const { feature } = probeFeature();
  r.register(feature);
  assert.throws(() => r.register(probeFeature({ description: "another" }).feature), {
    message: 'feature "level-probe" is already registered',
  });
  assert.equal(r.all().length, 1);
  assert.equal(r.all()[0]!.description, feature.description);
  assert.throws(
    () => features.register(probeFeature({ name: "queue-snapshot" }).feature),
    /"queue-snapshot" is already registered/,
  );
});

test("validate runs while the feature is off: a bad value is a UserError naming the flag", async () => {
  const r = new FeatureRegistry();
  const { feature, calls } = probeFeature();
  r.register(feature);
  const [f] = r.all();
  await assert.rejects(
    () => f!.configure({ probeLevel: 9 }, CONTEXT),
    (e: unknown) => e instanceof UserError && /--probe-level/.test(e.message),
  );
  assert.equal(calls.validate, 1);
  assert.equal(calls.settings.length, 0, "settings are not derived from a bad value");
  assert.equal(await f!.configure({ probeLevel: 2 }, CONTEXT), null, "off: no active feature");
});

test("settings are derived once per configuration from the parsed options, defaults from the schema", async () => {
  const r = new FeatureRegistry();
  const { feature, calls } = probeFeature();
  r.register(feature);
  const [f] = r.all();
  // Unrelated options are not the feature's: only its schema's keys reach it.
  const active = await f!.configure(
    { probeEnabled: true, numInstances: 7 },
    { ...CONTEXT, deployment: { ...DEPLOYMENT, numInstances: 4 } },
  );
  assert.ok(active !== null);
  assert.deepEqual(calls.settings, [{ probeEnabled: true, probeLevel: 3 }]);
  assert.equal(calls.validate, 1);
  const run = active.start(START);
  assert.equal(run.extension, null);
  assert.deepEqual(run.results?.(ENDED), { level: 3, instances: 4 });
  active.start(START);
  assert.equal(calls.settings.length, 1, "starting again reuses the bound settings");
  await assert.rejects(
    () => f!.configure({ probeLevel: "4" }, CONTEXT),
    "values are parsed through the schema (no string coercion)",
  );
});

test("a feature registered at run time gets a flag, a --help line, a bundle key and a place in the metrics", async () => {
  const { feature } = probeFeature();
  await withRegistered(feature, async () => {
    const help = await cli(["run", "--help"]);
    assert.match(help.stdout, /--probe-level <int>\s+the level probe's level \(default 3\)/);
    assert.match(help.stdout, /--probe-enabled \[bool\]\s+turns the level probe on/);

    const byFlag = await cli([...RUN, "--probe-enabled", "--probe-level", "4"]);
    assert.equal(byFlag.code, 0, byFlag.stderr.join("\n"));
    assert.deepEqual(clusterBlock(byFlag.stdout)["features"], { "level-probe": { level: 4, instances: 2 } });

    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "blis-feature-"));
    const bundle = path.join(dir, "policy.yaml");
    fs.writeFileSync(bundle, "probe:\n  enabled: true\n  level: 5\n");
    const byBundle = await cli([...RUN, "--policy-config", bundle]);
    assert.equal(byBundle.code, 0, byBundle.stderr.join("\n"));
    assert.deepEqual(clusterBlock(byBundle.stdout)["features"], { "level-probe": { level: 5, instances: 2 } });
    const flagWins = await cli([...RUN, "--policy-config", bundle, "--probe-level", "1"]);
    assert.deepEqual(clusterBlock(flagWins.stdout)["features"], { "level-probe": { level: 1, instances: 2 } });

    const off = await cli([...RUN, "--probe-level", "9"]);
    assert.equal(off.code, 1);
    assert.deepEqual(off.stderr, ["error: --probe-level must be in 1..5, got 9"]);
    assert.equal(off.stdout, "");
  });
  const gone = await cli([...RUN, "--probe-level", "4"]);
  assert.equal(gone.code, 1, "unregistered: the flag is gone again");
});

test("a feature declaring it cannot run with PD is refused with its own message", async () => {
  const message = "--probe-enabled cannot be combined with --prefill-instances/--decode-instances";
  const { feature } = probeFeature({ incompatible: [{ with: "pd", message }] });
  await withRegistered(feature, async () => {
    const refused = await cli([...RUN, ...PD, "--probe-enabled"]);
    assert.equal(refused.code, 1);
    assert.deepEqual(refused.stderr, [`error: ${message}`]);
    assert.equal(refused.stdout, "");
    const offWithPd = await cli([...RUN, ...PD]);
    assert.equal(offWithPd.code, 0, "off, it constrains nothing");
  });
});

test("a feature extension whose ranks overlap PD's (4–6) is an internal error naming both", async () => {
  const overlapping: ClusterExtension = {
    descriptor: { name: "rank-squatter", ranks: { first: 6, last: 7 }, capabilities: [] },
    attach() {},
    onEvent() {},
  };
  const { feature } = probeFeature({ name: "rank-squatter", start: () => ({ extension: overlapping }) });
  await withRegistered(feature, async () => {
    const withPd = await cli([...RUN, ...PD, "--probe-enabled"]);
    assert.equal(withPd.code, 2, "a feature bug, not a user mistake: exit status 2");
    assert.deepEqual(withPd.stderr.slice(-1), [
      'internal error: simulator invariant broken: cluster extensions "pd" (ranks 4–6) and "rank-squatter" (ranks 6–7) overlap',
    ]);
    const withoutPd = await cli([...RUN, "--probe-enabled"]);
    assert.equal(withoutPd.code, 0, withoutPd.stderr.join("\n"));
  });
});

const tierParams = z.object({
  probeTiers: z.array(z.strictObject({ name: z.string(), weight: z.number().positive() })).optional(),
});
type TierParams = z.infer<typeof tierParams>;

/** A feature whose only option is a list in the policy bundle, printing its own stdout block. */
const tierProbe: Feature<TierParams, NonNullable<TierParams["probeTiers"]>> = {
  name: "tier-probe",
  description: "prints the tiers its bundle section lists",
  params: tierParams,
  flags: [],
  bundleKeys: [{ key: "probeTiers", bundle: "probe_tiers" }],
  settings: (p) => p.probeTiers ?? null,
  start: (tiers) => ({
    extension: null,
    stdout: ({ end }) => `=== Tiers ===\n${tiers.map((t) => `${t.name}: ${t.weight}`).join("\n")}\nended at ${end}\n`,
  }),
};

test("a bundle-only option reaches its feature through the bundle, checked by its schema; stdout blocks print last", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "blis-feature-"));
  const write = (name: string, text: string): string => {
    fs.writeFileSync(path.join(dir, name), text);
    return path.join(dir, name);
  };
  const good = write("good.yaml", "probe_tiers:\n  - {name: gold, weight: 2}\n  - {name: iron, weight: 0.5}\n");
  const bad = write("bad.yaml", "probe_tiers:\n  - {name: gold, weight: -2}\n");
  await withRegistered(tierProbe, async () => {
    const on = await cli([...RUN, "--policy-config", good]);
    assert.equal(on.code, 0, on.stderr.join("\n"));
    assert.match(on.stdout, /\n=== Tiers ===\ngold: 2\niron: 0\.5\nended at \d+\n$/);
    const off = await cli(RUN);
    assert.ok(!off.stdout.includes("=== Tiers ==="), "no bundle section: the feature is off");
    const refused = await cli([...RUN, "--policy-config", bad]);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr.join("\n"), /probe_tiers\.0\.weight/);
  });
  const gone = await cli([...RUN, "--policy-config", good]);
  assert.equal(gone.code, 1, "unregistered: the bundle key is unknown again");
  assert.match(gone.stderr.join("\n"), /unknown field "probe_tiers"/);
});
