// Registers the built-in latency backends.
import { latencyBackends } from "./backend.js";
import { blackboxBackend, seedRooflineBackend } from "./blackboxBackend.js";
import { rooflineBackend } from "./rooflineBackend.js";
import { kernelsBackend } from "./kernelsBackend.js";
import { trainedPhysicsBackend } from "./trainedPhysicsBackend.js";

latencyBackends.register(trainedPhysicsBackend);
latencyBackends.register(rooflineBackend);
latencyBackends.register(blackboxBackend);
latencyBackends.register(seedRooflineBackend);
latencyBackends.register(kernelsBackend);
