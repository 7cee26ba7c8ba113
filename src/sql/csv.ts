/**
 * CSV read the way dbt reads unit-test fixtures and seeds: Python's
 * `csv.DictReader` with the default dialect (`,` and `"`, a doubled quote
 * escapes one, no trimming, blank lines skipped, quoted fields may span lines).
 */

export interface CsvTable {
  header: string[];
  /** Each row as read; a row shorter than the header is padded with null. */
  rows: (string | null)[][];
  /** 1-based line of each row's start, for messages. */
  lines: number[];
  /** Rows with more fields than the header (DictReader puts them under a None key). */
  overlong: number[];
}

/** Splits `text` into records of fields, with csv.reader's state machine. */
export function csvRecords(text: string): { fields: string[]; line: number }[] {
  type State = "record" | "field" | "unquoted" | "quoted" | "quoteInQuoted";
  const records: { fields: string[]; line: number }[] = [];
  let fields: string[] = [];
  let field = "";
  let state: State = "record";
  let line = 1;
  let recordLine = 1;
  const save = () => {
    fields.push(field);
    field = "";
  };
  const end = () => {
    records.push({ fields, line: recordLine });
    fields = [];
    state = "record";
  };
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    const newline = ch === "\n" || ch === "\r";
    if (newline && state !== "quoted") {
      if (ch === "\r" && text[i + 1] === "\n") i++;
      // A blank line is an empty record, which DictReader skips.
      if (state !== "record") {
        save();
        end();
      }
      line++;
      recordLine = line;
      continue;
    }
    if (ch === "\n") line++;
    switch (state) {
      case "record":
      case "field":
        if (state === "record") recordLine = line;
        if (ch === '"') state = "quoted";
        else if (ch === ",") {
          save();
          state = "field";
        } else {
          field += ch;
          state = "unquoted";
        }
        break;
      case "unquoted":
        if (ch === ",") {
          save();
          state = "field";
        } else field += ch;
        break;
      case "quoted":
        if (ch === '"') state = "quoteInQuoted";
        else field += ch;
        break;
      case "quoteInQuoted":
        if (ch === '"') {
          field += '"';
          state = "quoted";
        } else if (ch === ",") {
          save();
          state = "field";
        } else {
          field += ch;
          state = "unquoted";
        }
        break;
    }
  }
  if (state !== "record") {
    save();
    end();
  }
  return records;
}

/** Header row plus rows, as DictReader would yield them. */
export function parseCsv(text: string): CsvTable {
  const records = csvRecords(text);
  const first = records[0];
  if (!first) return { header: [], rows: [], lines: [], overlong: [] };
  const header = first.fields;
  const rows: (string | null)[][] = [];
  const lines: number[] = [];
  const overlong: number[] = [];
  for (const record of records.slice(1)) {
    const row: (string | null)[] = header.map((_, i) => (i < record.fields.length ? (record.fields[i] as string) : null));
    if (record.fields.length > header.length) overlong.push(record.line);
    rows.push(row);
    lines.push(record.line);
  }
  return { header, rows, lines, overlong };
}
