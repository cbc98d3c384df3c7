// Example plugin: a routing scorer that prefers instances with the most free KV blocks,
// normalized to [0, 1] across the cluster. Use it as
//   blis run ... --plugin examples/plugins/least-kv-scorer.mjs \
//     --routing-policy weighted --routing-scorers "free-kv:2,queue-depth:1"
// Option: --plugin-option free-kv.floor=0.1 keeps every instance's score at least 0.1.

/** @type {import("blis-ts/plugin").PluginModule} */
export default {
  name: "free-kv",
  register(api) {
    const floor = Number(api.options.floor ?? 0);
    api.registerScorer("free-kv", () => ({
      name: "free-kv",
      score(_req, state, out) {
        let max = 0;
        for (const s of state.snapshots) max = Math.max(max, s.freeKvBlocks);
        state.snapshots.forEach((s, i) => {
          const v = max > 0 ? s.freeKvBlocks / max : 1;
          out[i] = Math.max(floor, v);
        });
      },
      observe() {},
    }));
  },
};
