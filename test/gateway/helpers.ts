// A gateway on a fake host: dispatches, evictions and scheduled events are recorded, the
// saturation is set by the test.
import type { Request } from "../../src/core/request.js";
import { Gateway, type GatewaySettings } from "../../src/gateway/gateway.js";
import { ShedTally } from "../../src/gateway/counters.js";
import { priorityMap } from "../../src/gateway/priorities.js";
import { mkReq, tokens } from "../cluster/helpers.js";

export interface FakeGateway {
  gw: Gateway;
  dispatched: string[];
  events: { t: number; rank: number; id: string | null }[];
  evicted: string[];
  setSaturation(s: number): void;
}

export function fakeGateway(
  over: Partial<GatewaySettings> = {},
  alive: (r: Request) => boolean = () => true,
): FakeGateway {
  let s = 0;
  const out: FakeGateway = {
    gw: null as unknown as Gateway,
    dispatched: [],
    events: [],
    evicted: [],
    setSaturation: (v) => (s = v),
  };
  const settings: GatewaySettings = {
    priority: priorityMap(),
    detector: { name: "fake", saturation: () => s },
    usageLimit: 1,
    roundRobin: false,
    byDeadline: false,
    targets: new Map(),
    maxDepth: 0,
    perBand: 0,
    shedding: false,
    ttl: 0,
    tick: 1000,
    eviction: false,
    ...over,
  };
  out.gw = new Gateway(
    {
      schedule: (t, rank, req) => out.events.push({ t, rank, id: req?.id ?? null }),
      state: (clock) => ({ snapshots: [], clock }),
      dispatch: (req) => out.dispatched.push(req.id),
      evict: (req) => {
        out.evicted.push(req.id);
        return true;
      },
      alive,
    },
    settings,
    new ShedTally(),
  );
  return out;
}

/** A request of an SLO class and tenant. */
export function req(id: string, sloClass: string, tenantId = ""): Request {
  return mkReq(id, tokens(4), { extra: { sloClass, tenantId } });
}
