// CSV reading and writing with the rules of Go's encoding/csv (the reference's reader):
// quoted fields with "" escapes, CRLF normalization, blank lines skipped, and every record
// must have the field count of the first one.

export class CsvError extends Error {}

export interface CsvRecord {
  fields: string[];
  /** 1-based line where the record starts. */
  line: number;
}

/** Iterates records of `text`; throws CsvError like Go's csv.Reader with FieldsPerRecord = 0. */
export function* readCsv(text: string): Generator<CsvRecord> {
  const c = new CsvCursor(text);
  let expected = -1;
  while (c.i < text.length) {
    if (skipBlankLine(c)) continue;
    const startLine = c.line;
    const fields = readRecord(c, startLine);
    if (expected === -1) expected = fields.length;
    else if (fields.length !== expected) throw new CsvError(`record on line ${startLine}: wrong number of fields`);
    yield { fields, line: startLine };
  }
}

/** Where the reader is in the text; shared by the record loop and the field readers. */
class CsvCursor {
  i = 0;
  /** 1-based line of `i`. */
  line = 1;
  /** Index where the current line starts (for column numbers). */
  lineStart = 0;
  constructor(readonly text: string) {}
}

/** Skips an empty line at the cursor; false when a record starts there. */
function skipBlankLine(c: CsvCursor): boolean {
  const text = c.text;
  const i = c.i;
  if (text[i] === "\n") {
    c.i = i + 1;
    c.line++;
    return true;
  }
  if (text[i] === "\r" && text[i + 1] === "\n") {
    c.i = i + 2;
    c.line++;
    return true;
  }
  return false;
}

/** The fields of the record at the cursor; leaves the cursor after its line terminator. */
function readRecord(c: CsvCursor, startLine: number): string[] {
  const text = c.text;
  const fields: string[] = [];
  c.lineStart = c.i;
  let more = true;
  while (more) more = text[c.i] === '"' ? readQuotedField(c, startLine, fields) : readUnquotedField(c, fields);
  // Consume the line terminator.
  const i = c.i;
  if (text[i] === "\r" && text[i + 1] === "\n") c.i = i + 2;
  else if (text[i] === "\n") c.i = i + 1;
  c.line++;
  return fields;
}

/** Appends the quoted field at the cursor; true when another field of the record follows. */
function readQuotedField(c: CsvCursor, startLine: number, fields: string[]): boolean {
  const text = c.text;
  const i = c.i;
  let value = "";
  let j = i + 1;
  for (;;) {
    const q = text.indexOf('"', j);
    if (q === -1) {
      throw new CsvError(
        `parse error on line ${startLine}, column ${i - c.lineStart + 1}: extraneous or missing " in quoted-field`,
      );
    }
    value += text.slice(j, q);
    if (text[q + 1] === '"') {
      value += '"';
      j = q + 2;
      continue;
    }
    j = q + 1;
    break;
  }
  // Count embedded newlines for line tracking.
  for (let k = i; k < j; k++)
    if (text[k] === "\n") {
      c.line++;
      c.lineStart = k + 1;
    }
  fields.push(value.replace(/\r\n/g, "\n"));
  c.i = j;
  if (j >= text.length) return false;
  if (text[j] === ",") {
    c.i = j + 1;
    return true;
  }
  if (text[j] === "\n" || (text[j] === "\r" && text[j + 1] === "\n")) return false;
  throw new CsvError(
    `parse error on line ${c.line}, column ${j - c.lineStart + 1}: extraneous or missing " in quoted-field`,
  );
}

/** Appends the unquoted field at the cursor (up to the next comma or end of line); true when another field follows. */
function readUnquotedField(c: CsvCursor, fields: string[]): boolean {
  const text = c.text;
  const n = text.length;
  const i = c.i;
  let j = i;
  while (j < n && text[j] !== "," && text[j] !== "\n") j++;
  let value = text.slice(i, j);
  if (value.endsWith("\r") && (j >= n || text[j] === "\n")) value = value.slice(0, -1);
  const bare = value.indexOf('"');
  if (bare !== -1) {
    throw new CsvError(
      `parse error on line ${c.line}, column ${i - c.lineStart + bare + 1}: bare " in non-quoted field`,
    );
  }
  fields.push(value);
  c.i = j;
  if (j < n && text[j] === ",") {
    c.i = j + 1;
    if (j + 1 >= n) {
      // A trailing comma ends the text with one more, empty, field.
      fields.push("");
      return false;
    }
    return true;
  }
  return false;
}

/** One CSV field, quoted when Go's csv.Writer would quote it. */
export function csvField(value: string): string {
  if (value === "") return value;
  const needs = value === "\\." || /[",\r\n]/.test(value) || value[0] === " " || value[0] === "\t";
  return needs ? `"${value.replace(/"/g, '""')}"` : value;
}

export function csvLine(fields: readonly string[]): string {
  return fields.map(csvField).join(",") + "\n";
}
