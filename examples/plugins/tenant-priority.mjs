// Example plugin: a priority policy and an admission policy keyed by tenant.
//   --priority-policy tenant-weighted --scheduler priority-fcfs
//   --admission-policy tenant-quota --plugin-option tenant-priority.quota=200
// tenant-weighted: priority = tenant weight + 1 per second waited; tenants whose ID contains
// "premium" weigh 10, everyone else 1. tenant-quota: admits at most `quota` requests per
// tenant whose ID does not contain "premium".

/** @type {import("blis-ts/plugin").PluginModule} */
export default {
  name: "tenant-priority",
  register(api) {
    const quota = Number(api.options.quota ?? 100);
    api.registerPriorityPolicy("tenant-weighted", () => ({
      name: "tenant-weighted",
      isConstant: false,
      compute(req, now) {
        const w = req.tenantId.includes("premium") ? 10 : 1;
        return w + (now - req.arrival) / 1e6;
      },
    }));
    api.registerAdmissionPolicy("tenant-quota", () => {
      const admitted = new Map();
      return {
        name: "tenant-quota",
        reason: "",
        admit(req) {
          if (req.tenantId.includes("premium")) return true;
          const n = admitted.get(req.tenantId) ?? 0;
          if (n >= quota) {
            this.reason = "tenant quota exhausted";
            return false;
          }
          admitted.set(req.tenantId, n + 1);
          this.reason = "";
          return true;
        },
      };
    });
  },
};
