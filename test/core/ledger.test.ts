import { test } from "node:test";
import assert from "node:assert/strict";
import { RequestLedger } from "../../src/core/ledger.js";
import { Request } from "../../src/core/request.js";
import { makeRequest, requestIdNumber } from "../../src/core/workloadRequest.js";

test("request IDs: numbered ones are kept as numbers, others as text, order as strings", () => {
  assert.equal(requestIdNumber("request_12"), 12);
  assert.equal(requestIdNumber("request_0"), 0);
  for (const odd of ["request_012", "request_", "request_-1", "request_1.5", "req_3", "request_1e3", "x"]) {
    assert.equal(requestIdNumber(odd), -1, odd);
  }
  const ledger = new RequestLedger();
  const ids = ["request_10", "request_9", "trace-a", "request_012"];
  ids.forEach((id, seq) => {
    const r = new Request(makeRequest(id, 0, [1], [2]), seq * 2, 16);
    assert.equal(r.id, id);
    ledger.register(r);
  });
  assert.deepEqual(
    [0, 2, 4, 6].map((i) => ledger.id(i)),
    ids,
  );
  assert.equal(ledger.id(1), "", "a sequence number that never reached an instance");
  assert.equal(ledger.ids[1], undefined);
  assert.equal(ledger.ids[4], "trace-a");
  // request_10 < request_9 as strings, as the results file orders them
  assert.ok(ledger.compareIds(0, 2) < 0);
  assert.ok(ledger.compareIds(6, 0) < 0);
  assert.equal(ledger.compareIds(4, 4), 0);
});
