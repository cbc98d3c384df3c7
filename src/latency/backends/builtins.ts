// Registers the built-in latency backends.
import { latencyBackends } from "./backend.js";
import { blackboxBackend, seedRooflineBackend } from "./blackboxBackend.js";
import { rooflineBackend } from "./rooflineBackend.js";
import { kernelsBackend } from "./kernelsBackend.js";
import { trainedPhysicsBackend } from "./trainedPhysicsBackend.js";

latencyBackends.register(trainedPhysicsBackend.name, trainedPhysicsBackend);
latencyBackends.register(rooflineBackend.name, rooflineBackend);
latencyBackends.register(blackboxBackend.name, blackboxBackend);
latencyBackends.register(seedRooflineBackend.name, seedRooflineBackend);
latencyBackends.register(kernelsBackend.name, kernelsBackend);
