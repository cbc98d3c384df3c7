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
  const n = text.length;
  let i = 0;
  let line = 1;
  let expected = -1;
  while (i < n) {
    // Skip blank lines.
    if (text[i] === "\n") {
      i++;
      line++;
      continue;
    }
    if (text[i] === "\r" && text[i + 1] === "\n") {
      i += 2;
      line++;
      continue;
    }
    const startLine = line;
    const fields: string[] = [];
    let lineStart = i;
    for (;;) {
      if (text[i] === '"') {
        // Quoted field.
        let value = "";
        let j = i + 1;
        for (;;) {
          const q = text.indexOf('"', j);
          if (q === -1) {
            throw new CsvError(`parse error on line ${startLine}, column ${i - lineStart + 1}: extraneous or missing " in quoted-field`);
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
            line++;
            lineStart = k + 1;
          }
        fields.push(value.replace(/\r\n/g, "\n"));
        i = j;
        if (i >= n) break;
        if (text[i] === ",") {
          i++;
          continue;
        }
        if (text[i] === "\n" || (text[i] === "\r" && text[i + 1] === "\n")) break;
        throw new CsvError(`parse error on line ${line}, column ${i - lineStart + 1}: extraneous or missing " in quoted-field`);
      }
      // Unquoted field: up to the next comma or end of line.
      let j = i;
      while (j < n && text[j] !== "," && text[j] !== "\n") j++;
      let value = text.slice(i, j);
      if (value.endsWith("\r") && (j >= n || text[j] === "\n")) value = value.slice(0, -1);
      const bare = value.indexOf('"');
      if (bare !== -1) {
        throw new CsvError(`parse error on line ${line}, column ${i - lineStart + bare + 1}: bare " in non-quoted field`);
      }
      fields.push(value);
      i = j;
      if (i < n && text[i] === ",") {
        i++;
        if (i >= n) {
          fields.push("");
          break;
        }
        continue;
      }
      break;
    }
    // Consume the line terminator.
    if (text[i] === "\r" && text[i + 1] === "\n") i += 2;
    else if (text[i] === "\n") i++;
    line++;
    if (expected === -1) expected = fields.length;
    else if (fields.length !== expected) throw new CsvError(`record on line ${startLine}: wrong number of fields`);
    yield { fields, line: startLine };
  }
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
