// Property tests run with a fixed seed so CI is reproducible; FC_SEED explores other seeds.
export const FC_SEED = process.env["FC_SEED"] !== undefined ? Number(process.env["FC_SEED"]) : 20261122;
