// Evaluated before any schema of the command line is built (first import of main.ts). A process
// parses its options once: zod's compiled object parsers (built with new Function, which no code
// cache holds) cost more to build than the one parse they serve, about 8 ms of every start.
import { z } from "zod";

z.config({ jitless: true });
