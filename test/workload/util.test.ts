import assert from "node:assert/strict";
import { test } from "node:test";
import { CsvError, csvLine, readCsv } from "../../src/workload/util/csv.js";
import { fmtF, fmtShortestDecimal, fmtV } from "../../src/workload/util/format.js";
import { parseGoFloat, parseGoIntDetailed, roundHalfAway } from "../../src/util/parse.js";
import { parsePdfDict } from "../../src/workload/index.js";

test("Go number formatting", () => {
  assert.equal(fmtF(0), "0.000000");
  assert.equal(fmtF(-1.5), "-1.500000");
  assert.equal(fmtF(NaN), "NaN");
  assert.equal(fmtF(Infinity), "+Inf");
  assert.equal(fmtV(0), "0");
  assert.equal(fmtV(1e6), "1e+06");
  assert.equal(fmtV(100000), "100000");
  assert.equal(fmtV(1e-5), "1e-05");
  assert.equal(fmtV(-Infinity), "-Inf");
  assert.equal(fmtShortestDecimal(1e-7), "0.0000001");
  assert.equal(fmtShortestDecimal(0.25), "0.25");
  assert.equal(fmtShortestDecimal(1.5e22), "15000000000000000000000");
});

test("strict scalar parsing and rounding", () => {
  assert.equal(parseGoFloat("3e-1"), 0.3);
  assert.equal(parseGoFloat("-Inf"), -Infinity);
  assert.ok(Number.isNaN(parseGoFloat("nan")));
  assert.equal(parseGoFloat(""), null);
  assert.equal(parseGoFloat("12abc"), null);
  assert.deepStrictEqual(parseGoIntDetailed("-42"), { ok: true, value: -42 });
  assert.equal(parseGoIntDetailed("4.2").ok, false);
  assert.equal(parseGoIntDetailed("99999999999999999999").ok, false);
  assert.equal(roundHalfAway(2.5), 3);
  assert.equal(roundHalfAway(-2.5), -3);
  assert.equal(roundHalfAway(0.49999999999999994), 0);
});

test("CSV reading and writing (Go encoding/csv rules)", () => {
  const recs = [...readCsv('a,b,c\r\n"x, y","say ""hi""",\n\n1,"multi\nline",3\n')];
  assert.deepStrictEqual(
    recs.map((r) => r.fields),
    [
      ["a", "b", "c"],
      ["x, y", 'say "hi"', ""],
      ["1", "multi\nline", "3"],
    ],
  );
  assert.deepStrictEqual(
    recs.map((r) => r.line),
    [1, 2, 4],
  );
  assert.throws(
    () => [...readCsv("a,b\n1,2,3\n")],
    (e: Error) => e instanceof CsvError && e.message === "record on line 2: wrong number of fields",
  );
  assert.throws(() => [...readCsv('a,b"c\n')], /bare " in non-quoted field/);
  assert.throws(() => [...readCsv('"abc\n')], /extraneous or missing " in quoted-field/);
  const line = csvLine(["plain", "with,comma", 'q"uote', " lead", ""]);
  assert.equal(line, 'plain,"with,comma","q""uote"," lead",\n');
  assert.deepStrictEqual([...readCsv(line)][0]!.fields, ["plain", "with,comma", 'q"uote', " lead", ""]);
});

test("ServeGen PDF dict parsing", () => {
  assert.deepStrictEqual(
    [...parsePdfDict("{100: 0.5, 200.7: 3e-1,}")],
    [
      [100, 0.5],
      [200, 0.3],
    ],
  );
  assert.throws(() => parsePdfDict("100: 1"), /missing braces/);
  assert.throws(() => parsePdfDict("{ }"), /empty/);
  assert.throws(() => parsePdfDict("{a: 1}"), /invalid PDF key/);
});
