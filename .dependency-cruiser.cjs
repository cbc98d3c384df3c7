// Import cycles are not allowed anywhere in src/ (type-only imports included); the layer order
// itself is checked by test/architecture/layers.test.ts (docs/architecture.md "Layers").
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "a module must not depend on itself through other modules",
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
  },
};
