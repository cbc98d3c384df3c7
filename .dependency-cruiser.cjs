// The architecture rules of src/ (docs/architecture.md "Layers"), checked by `npm run lint`:
// no import cycles (type-only imports included), and the layer order: a folder imports only from
// its own layer or lower ones, so the simulator core never depends on the command line or the
// reports. Folders of one layer may import each other.

const { LAYERS } = require("./scripts/layers.cjs");

const folders = (names) => `^src/(${names.join("|")})/`;

/** One rule per layer: nothing in it imports from a layer above. */
const layerRules = LAYERS.slice(0, -1).map((names, i) => ({
  name: `layer-${names.join("-")}`,
  severity: "error",
  comment: `${names.join(", ")} may import only from their own layer or lower ones (docs/architecture.md "Layers")`,
  from: { path: folders(names) },
  to: { path: folders(LAYERS.slice(i + 1).flat()) },
}));

module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "a module must not depend on itself through other modules",
      from: {},
      to: { circular: true },
    },
    ...layerRules,
    {
      name: "cluster-knows-no-extension",
      severity: "error",
      comment:
        'the cluster loop reaches its extensions only through src/cluster/extension.ts: cluster/ imports none of gateway/, pd/, autoscale/ (docs/architecture.md "Cluster extensions")',
      from: { path: "^src/cluster/" },
      to: { path: "^src/(gateway|pd|autoscale)/" },
    },
    {
      name: "autoscale-knows-no-cluster-loop",
      severity: "error",
      comment:
        'the autoscaler reaches the cluster only through the port of src/cluster/extension.ts: autoscale/ does not import src/cluster/cluster.ts or src/cluster/clusterState.ts (docs/architecture.md "Cluster extensions")',
      from: { path: "^src/autoscale/" },
      to: { path: "^src/cluster/(cluster|clusterState)\\.ts$" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
  },
};
