/**
 * The one sanitizer every database message (DuckDB, PostgreSQL) passes
 * before slp repeats it anywhere (text, the JSON envelope, .slp/queries.jsonl,
 * reports, unit and mutate results): a message can carry a row's value out
 * (`error(customer_email)`, a failed cast quoting the cell, PostgreSQL's
 * DETAIL line), so the values go and what helps stays: the error class, the
 * identifiers (columns, tables, functions, types). DuckDB's `LINE n:` excerpt
 * goes too: it quotes the SQL, literals and all, and its position is in the
 * query slp built around the user's SQL, not in any file the user can open.
 */

/** DuckDB's classes whose messages name the SQL's identifiers (a column, a function), never a row's value. */
const NAMING_CLASSES = new Set([
  "Binder Error",
  "Catalog Error",
  "Parser Error",
  "Syntax Error",
  "Not implemented Error",
  "Permission Error",
  "Dependency Error",
  "INTERRUPT Error",
  "Out of Memory Error",
  "IO Error",
]);

/** The Invalid Input Error messages of DuckDB's own (a value in them is withheld like any other); any other is error()'s text, the user's own, withheld whole. */
const OWN_INVALID_INPUT = [/^Malformed JSON\b/, /^Could not parse string\b/, /^CSV Error\b/, /^Error when sniffing file\b/];

/** PostgreSQL's SQLSTATE classes that name identifiers (syntax, undefined objects, permissions), never a row's value. */
const NAMING_SQLSTATE = /^(42|0A|53|54|55|57|58|08|28|3D|3F)/;

const WITHHELD = "…";

export type EngineName = "duckdb" | "postgres";

/**
 * What a database holds decides how much of error()'s text (an Invalid Input
 * Error) is kept: Stage E's real data, none of it ("data"); a unit test's
 * fixtures, which the repository holds already, its words with the quoted
 * values and numbers withheld ("fixtures"), since most such texts are slp's
 * own translations' errors (`[INVALID_ARRAY_INDEX] The index … is out of bounds`).
 */
export type Holding = "data" | "fixtures";

/**
 * The message without its values: the first line, the class kept, quoted
 * values and numbers withheld where the class says they are data; the lines
 * after it (DuckDB's `LINE n:` excerpt) dropped. `sqlState` is PostgreSQL's code, when there is one.
 */
export function engineMessage(raw: string, engine: EngineName, sqlState: string | null = null, holding: Holding = "data"): string {
  const head = (raw.split("\n")[0] as string).trim();
  if (engine === "postgres") return postgresMessage(head, sqlState);
  const classed = /^([A-Za-z][A-Za-z ]*? Error): ?([\s\S]*)$/.exec(head);
  if (!classed) return withoutValues(head);
  const [, errorClass, body] = classed as unknown as [string, string, string];
  if (NAMING_CLASSES.has(errorClass)) return `${errorClass}: ${namingOnly(body)}`;
  if (errorClass === "Invalid Input Error" && holding === "data" && !OWN_INVALID_INPUT.some((pattern) => pattern.test(body))) {
    return `${errorClass}: ${WITHHELD} (its text is withheld: it can be a value, as error() gives it)`;
  }
  return `${errorClass}: ${withoutValues(body)}`;
}

/** PostgreSQL: the first line (DETAIL, HINT and CONTEXT lines quote values), values withheld unless the class only names things. */
function postgresMessage(head: string, sqlState: string | null): string {
  const text = sqlState !== null && NAMING_SQLSTATE.test(sqlState) ? namingOnly(head) : withoutValues(head);
  return sqlState !== null ? `${text} (SQLSTATE ${sqlState})` : text;
}

/** An identifier, a qualified name, a path, a type, an operator or a function signature: what a naming message quotes. */
const NAME = /^(?:[A-Za-z_/][A-Za-z0-9_$./-]*|[-+*/%<>=!|&^~@]{1,3})(\([A-Za-z0-9_, .[\]()]*\))?(\[\])?$/;

/** Quoted names kept, anything else quoted withheld (a parser quotes the SQL's text, literals included). */
function namingOnly(text: string): string {
  return text.replace(/"([^"]*)"|'([^']*)'/g, (quoted, double?: string, single?: string) => {
    const inside = double ?? single ?? "";
    return NAME.test(inside) ? quoted : `${quoted[0]}${WITHHELD}${quoted[0]}`;
  });
}

/** A type with its size (`DECIMAL(10,2)`, `VARCHAR(20)`): kept whole while the numbers around it go. */
const SIZED_TYPE = /\b[A-Z][A-Z0-9_]*\(\s*\d+(?:\s*,\s*\d+)?\s*\)/g;

/** Quoted text, the word after `with value`, what follows a closing colon and every number: withheld. */
function withoutValues(text: string): string {
  const kept: string[] = [];
  let out = text.replace(SIZED_TYPE, (type) => `\u0000${kept.push(type) - 1}\u0000`);
  out = out.replace(/"[^"]*"|'[^']*'/g, (quoted) => `${quoted[0]}${WITHHELD}${quoted[0]}`);
  out = out.replace(/\b(with value)\s+(?![\u0000"'…(])[^\s,;:()]+/gi, `$1 ${WITHHELD}`);
  out = out.replace(/(out of range|Overflow[^(:]*|Input|Value|value):\s+(?![\u0000"'…])[^\u0000]*$/, `$1: ${WITHHELD}`);
  out = out.replace(/\([^()\u0000]*\d[^()\u0000]*\)/g, `(${WITHHELD})`);
  out = out.replace(/(?<![A-Za-z0-9_\u0000])[-+]?\d[\d.:eE+-]*(?![A-Za-z_\u0000])/g, WITHHELD);
  return out.replace(/\u0000(\d+)\u0000/g, (_, i: string) => kept[Number(i)] as string);
}

/**
 * Where in `sql` DuckDB's message points (a 0-based index into `sql`), read
 * from its `LINE n:` excerpt and the caret under it; null when it names no
 * place. The excerpt is cut to about 80 columns around the place (`...` at
 * a cut end) and the caret counts display columns (a wide character is two),
 * so the excerpt is found in the line and the columns are walked there. DuckDB
 * breaks lines at `\n`, `\r\n` and a lone `\r`. The excerpt quotes the SQL, so
 * only the index leaves this function, never the text.
 */
export function duckdbOffset(raw: string, sql: string): number | null {
  const lines = raw.split("\n");
  for (let i = 1; i < lines.length; i++) {
    const match = /^LINE (\d+): /.exec(lines[i] as string);
    if (!match) continue;
    const caret = (lines[i + 1] ?? "").indexOf("^");
    if (caret < match[0].length) return null;
    let excerpt = (lines[i] as string).slice(match[0].length);
    const cutBefore = excerpt.startsWith("...");
    if (cutBefore) excerpt = excerpt.slice(3);
    const starts = [0];
    for (let at = 0; at < sql.length; at++) if (sql[at] === "\n" || (sql[at] === "\r" && sql[at + 1] !== "\n")) starts.push(at + 1);
    const lineStart = starts[Number(match[1]) - 1];
    if (lineStart === undefined) return null;
    const line = (/^[^\r\n]*/.exec(sql.slice(lineStart)) as RegExpExecArray)[0];
    if (excerpt.endsWith("...") && !line.endsWith(excerpt)) excerpt = excerpt.slice(0, -3);
    const from = cutBefore ? line.indexOf(excerpt) : 0;
    if (from < 0) return null;
    let width = caret - match[0].length - (cutBefore ? 3 : 0);
    let at = from;
    while (width > 0 && at < line.length) {
      const code = line.codePointAt(at) as number;
      width -= displayWidth(code);
      at += code > 0xffff ? 2 : 1;
    }
    return lineStart + at;
  }
  return null;
}

/** Columns a character takes in DuckDB's excerpt: two for East Asian wide and full-width characters and emoji, else one. */
function displayWidth(code: number): number {
  const wide =
    (code >= 0x1100 && code <= 0x115f) ||
    (code >= 0x2e80 && code <= 0xa4cf) ||
    (code >= 0xac00 && code <= 0xd7a3) ||
    (code >= 0xf900 && code <= 0xfaff) ||
    (code >= 0xfe30 && code <= 0xfe4f) ||
    (code >= 0xff00 && code <= 0xff60) ||
    (code >= 0xffe0 && code <= 0xffe6) ||
    (code >= 0x1f300 && code <= 0x1faff) ||
    (code >= 0x20000 && code <= 0x3fffd);
  return wide ? 2 : 1;
}
