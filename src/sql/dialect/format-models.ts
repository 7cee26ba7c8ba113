/**
 * TO_CHAR's format patterns (Postgres, Redshift) as DuckDB expressions: the
 * date and time patterns of the Postgres manual's "Data Type Formatting
 * Functions" tables (https://www.postgresql.org/docs/current/functions-formatting.html)
 * and Redshift's datetime and numeric format strings, element by element,
 * each as the text the warehouse writes (blank padding, FM, TH, case); an
 * element slp has not implemented is refused by name, never guessed.
 */
import type { Call } from "./construct.ts";

type Refusal = { refuse: string };

/** A number element: its value from the timestamp `t`, and its zero-padded width (0: never padded). */
interface NumberElement {
  kind: "number";
  value: (t: string) => string;
  width: number;
}
/** A text element: its text from `t`, the blank-padded width without FM (0: never padded). */
interface TextElement {
  kind: "text";
  text: (t: string) => string;
  width: number;
}
type DatetimeElement = NumberElement | TextElement;

const number = (value: (t: string) => string, width: number): NumberElement => ({ kind: "number", value, width });
const text = (value: (t: string) => string, width = 0): TextElement => ({ kind: "text", text: value, width });
const cased = (expression: string, style: "upper" | "capital" | "lower") =>
  style === "upper" ? `upper(${expression})` : style === "lower" ? `lower(${expression})` : expression;
const ROMAN_MONTHS = "['I', 'II', 'III', 'IV', 'V', 'VI', 'VII', 'VIII', 'IX', 'X', 'XI', 'XII']";

/** Postgres's and Redshift's date and time patterns; each in the spellings its keyword table has, longest first where one starts another. */
function datetimeElements(dialect: "postgres" | "redshift"): [string, DatetimeElement][] {
  const elements: [string, DatetimeElement][] = [];
  const both = (name: string, element: DatetimeElement) => {
    elements.push([name, element]);
    if (name.toLowerCase() !== name) elements.push([name.toLowerCase(), element]);
  };
  both(
    "Y,YYY",
    text((t) => `printf('%d,%03d', year(${t}) // 1000, year(${t}) % 1000)`),
  );
  both(
    "YYYY",
    number((t) => `year(${t})`, 4),
  );
  both(
    "YYY",
    number((t) => `year(${t}) % 1000`, 3),
  );
  both(
    "YY",
    number((t) => `year(${t}) % 100`, 2),
  );
  both(
    "IYYY",
    number((t) => `isoyear(${t})`, 4),
  );
  both(
    "IYY",
    number((t) => `isoyear(${t}) % 1000`, 3),
  );
  both(
    "IY",
    number((t) => `isoyear(${t}) % 100`, 2),
  );
  both(
    "IDDD",
    number((t) => `(week(${t}) - 1) * 7 + isodow(${t})`, 3),
  );
  both(
    "ID",
    number((t) => `isodow(${t})`, 0),
  );
  both(
    "IW",
    number((t) => `week(${t})`, 2),
  );
  both(
    "I",
    number((t) => `isoyear(${t}) % 10`, 1),
  );
  both(
    "Y",
    number((t) => `year(${t}) % 10`, 1),
  );
  both(
    "HH24",
    number((t) => `hour(${t})`, 2),
  );
  both(
    "HH12",
    number((t) => `(hour(${t}) + 11) % 12 + 1`, 2),
  );
  both(
    "HH",
    number((t) => `(hour(${t}) + 11) % 12 + 1`, 2),
  );
  both(
    "MI",
    number((t) => `minute(${t})`, 2),
  );
  both(
    "SSSSS",
    number((t) => `hour(${t}) * 3600 + minute(${t}) * 60 + second(${t})`, 0),
  );
  both(
    "SSSS",
    number((t) => `hour(${t}) * 3600 + minute(${t}) * 60 + second(${t})`, 0),
  );
  both(
    "SS",
    number((t) => `second(${t})`, 2),
  );
  both(
    "MS",
    number((t) => `millisecond(${t}) % 1000`, 3),
  );
  both(
    "US",
    number((t) => `microsecond(${t}) % 1000000`, 6),
  );
  if (dialect === "postgres")
    for (let digits = 6; digits >= 1; digits--)
      both(
        `FF${digits}`,
        number((t) => `(microsecond(${t}) % 1000000) // ${10 ** (6 - digits)}`, digits),
      );
  both(
    "CC",
    number((t) => `century(${t})`, 2),
  );
  both(
    "DDD",
    number((t) => `dayofyear(${t})`, 3),
  );
  both(
    "DD",
    number((t) => `day(${t})`, 2),
  );
  both(
    "D",
    number((t) => `dayofweek(${t}) + 1`, 0),
  );
  both(
    "MM",
    number((t) => `month(${t})`, 2),
  );
  both(
    "WW",
    number((t) => `(dayofyear(${t}) - 1) // 7 + 1`, 2),
  );
  both(
    "W",
    number((t) => `(day(${t}) - 1) // 7 + 1`, 0),
  );
  both(
    "Q",
    number((t) => `quarter(${t})`, 0),
  );
  both(
    "J",
    number((t) => `date_diff('day', date '1970-01-01', cast(${t} as date)) + 2440588`, 0),
  );
  for (const [name, style] of [
    ["MONTH", "upper"],
    ["Month", "capital"],
    ["month", "lower"],
  ] as const)
    elements.push([name, text((t) => cased(`strftime(${t}, '%B')`, style), 9)]);
  for (const [name, style] of [
    ["MON", "upper"],
    ["Mon", "capital"],
    ["mon", "lower"],
  ] as const)
    elements.push([name, text((t) => cased(`strftime(${t}, '%b')`, style))]);
  for (const [name, style] of [
    ["DAY", "upper"],
    ["Day", "capital"],
    ["day", "lower"],
  ] as const)
    elements.push([name, text((t) => cased(`strftime(${t}, '%A')`, style), 9)]);
  for (const [name, style] of [
    ["DY", "upper"],
    ["Dy", "capital"],
    ["dy", "lower"],
  ] as const)
    elements.push([name, text((t) => cased(`strftime(${t}, '%a')`, style))]);
  elements.push(["RM", text((t) => `${ROMAN_MONTHS}[month(${t})]`, 4)]);
  elements.push(["rm", text((t) => `lower(${ROMAN_MONTHS}[month(${t})])`, 4)]);
  for (const [am, pm] of [
    ["A.M.", "P.M."],
    ["a.m.", "p.m."],
    ["AM", "PM"],
    ["am", "pm"],
  ]) {
    const meridiem = text((t) => `case when hour(${t}) < 12 then '${am}' else '${pm}' end`);
    elements.push([am as string, meridiem], [pm as string, meridiem]);
  }
  for (const [ad, bc] of [
    ["A.D.", "B.C."],
    ["a.d.", "b.c."],
    ["AD", "BC"],
    ["ad", "bc"],
  ]) {
    const era = text(
      (t) => `case when year(${t}) > 0 then '${ad}' else error('a year before 1: slp has not verified the warehouse''s era of it') end`,
    );
    elements.push([ad as string, era], [bc as string, era]);
  }
  // Longest first, so HH24 is read before HH and DDD before DD (the order of the keyword table).
  return elements.sort((a, b) => b[0].length - a[0].length);
}

/** Elements slp refuses by name, with why. */
const REFUSED_DATETIME: [RegExp, string][] = [
  [/^(TZH|TZM|TZ|tz|OF)/, "a time zone (slp runs in UTC, the warehouse in its session's zone)"],
  [/^(FX|fx)/, "the FX prefix"],
  [/^(TM|tm)/, "the TM (translation mode) prefix"],
];

/** The ordinal suffix of a number as Postgres writes it (st, nd, rd, th; upper for TH). */
const ordinal = (value: string, upper: boolean) => {
  const suffix = `case when (${value}) % 100 between 11 and 13 then 'th' when (${value}) % 10 = 1 then 'st' when (${value}) % 10 = 2 then 'nd' when (${value}) % 10 = 3 then 'rd' else 'th' end`;
  return upper ? `upper(${suffix})` : suffix;
};

/** The pieces (DuckDB expressions of `t`) of a date and time pattern, or the refusal naming the element. */
export function datetimePattern(format: string, dialect: "postgres" | "redshift"): ((t: string) => string[]) | Refusal {
  const table = datetimeElements(dialect);
  const pieces: ((t: string) => string)[] = [];
  const refuse = (why: string): Refusal => ({ refuse: `the format '${format}': ${why}` });
  for (let i = 0; i < format.length; ) {
    const rest = format.slice(i);
    if (rest.startsWith('"')) {
      let literal = "";
      let j = i + 1;
      for (; j < format.length && format[j] !== '"'; j++) {
        if (format[j] === "\\" && format[j + 1] === '"') j++;
        literal += format[j];
      }
      if (j >= format.length) return refuse("an unclosed quote");
      pieces.push(() => quote(literal));
      i = j + 1;
      continue;
    }
    const fill = /^(FM|fm)/.test(rest);
    const at = fill ? i + 2 : i;
    const refused = REFUSED_DATETIME.find(([pattern]) => pattern.test(format.slice(at)));
    if (refused) return refuse(`slp does not translate ${refused[1]}`);
    const found = table.find(([name]) => format.startsWith(name, at));
    if (!found) {
      if (fill) return refuse("FM must precede a pattern");
      const char = format[i] as string;
      if (/[A-Za-z\\]/.test(char)) return refuse(`slp does not translate the pattern at '${rest}'`);
      pieces.push(() => quote(char));
      i++;
      continue;
    }
    const [name, element] = found;
    i = at + name.length;
    const suffix = /^(TH|th)/.exec(format.slice(i));
    if (/^(SP|sp)/.test(format.slice(i))) return refuse("slp does not translate the SP suffix");
    if (suffix) i += 2;
    if (element.kind === "text") {
      if (suffix) return refuse(`a TH suffix after ${name}`);
      pieces.push(element.width > 0 && !fill ? (t) => `rpad(${element.text(t)}, ${element.width}, ' ')` : element.text);
      continue;
    }
    const th = suffix ? (suffix[1] as string) : null;
    pieces.push((t) => {
      const value = element.value(t);
      const written = element.width > 0 && !fill ? `printf('%0${element.width}d', ${value})` : `cast(${value} as varchar)`;
      return th === null ? written : `${written} || ${ordinal(value, th === "TH")}`;
    });
  }
  return (t) => pieces.map((piece) => piece(t));
}

const quote = (text: string) => `'${text.replace(/'/g, "''")}'`;

/** A numeric pattern: digit positions and their decorations, in order. */
type NumberItem =
  | { kind: "digit"; zero: boolean; fraction: boolean }
  | { kind: "point" }
  | { kind: "comma" }
  | { kind: "literal"; text: string }
  | { kind: "sign"; element: "S" | "MI" | "PR" };

/** Reads a numeric pattern (9, 0, . or D, ',', FM, S, MI and PR at the end, quoted text), or the refusal naming what slp does not translate. */
function readNumberPattern(format: string, dialect: "postgres" | "redshift"): { items: NumberItem[]; fill: boolean } | Refusal {
  const refuse = (why: string): Refusal => ({ refuse: `the number format '${format}': ${why}` });
  const items: NumberItem[] = [];
  let fill = false;
  let point = false;
  for (let i = 0; i < format.length; ) {
    const rest = format.slice(i);
    const char = format[i] as string;
    if (char === '"') {
      const end = format.indexOf('"', i + 1);
      if (end < 0) return refuse("an unclosed quote");
      items.push({ kind: "literal", text: format.slice(i + 1, end) });
      i = end + 1;
      continue;
    }
    if (/^(FM|fm)/.test(rest)) {
      fill = true;
      i += 2;
      continue;
    }
    if (char === "9" || char === "0") {
      items.push({ kind: "digit", zero: char === "0", fraction: point });
      i++;
      continue;
    }
    if (char === "." || ((char === "D" || char === "d") && dialect === "redshift")) {
      if (point) return refuse("a second decimal point");
      point = true;
      items.push({ kind: "point" });
      i++;
      continue;
    }
    if (char === "," || ((char === "G" || char === "g") && dialect === "redshift")) {
      if (point) return refuse("a group separator after the decimal point");
      items.push({ kind: "comma" });
      i++;
      continue;
    }
    const sign = /^(S|s|MI|mi|PR|pr)/.exec(rest);
    if (sign) {
      items.push({ kind: "sign", element: (sign[1] as string).toUpperCase() as "S" | "MI" | "PR" });
      i += (sign[1] as string).length;
      continue;
    }
    const named = /^(D|G|L|V|EEEE|RN|PL|SG|TH|th|B|[A-Za-z])/i.exec(rest);
    // Redshift's D and G are the point and the comma (its documented to_number('12,454.8-', '99G999D9S')).
    if (named)
      return refuse(
        /^[DGL]$/i.test(named[1] as string)
          ? `slp does not translate ${named[1]} (its character follows the database's locale)`
          : `slp does not translate the element ${named[1]}`,
      );
    items.push({ kind: "literal", text: char });
    i++;
  }
  const signs = items.filter((item) => item.kind === "sign");
  const digits = items.filter((item) => item.kind === "digit");
  if (digits.length === 0) return refuse("no digit position (9 or 0)");
  if (signs.length > 1) return refuse("more than one sign element");
  const sign = signs[0] as (NumberItem & { kind: "sign" }) | undefined;
  if (sign) {
    const index = items.indexOf(sign);
    const last = index === items.length - 1;
    const first = items.findIndex((item) => item.kind === "digit" || item.kind === "point") > index;
    if (!(last || (first && sign.element === "S")))
      return refuse(
        `slp translates ${sign.element} only ${sign.element === "S" ? "before the first or after the last digit" : "at the end"}`,
      );
  }
  // Literal text among the fraction's digits, or between the digits and a trailing sign, is not read.
  const fractionStart = items.findIndex((item) => item.kind === "point");
  if (fractionStart >= 0 && items.slice(fractionStart + 1).some((item) => item.kind === "literal" || item.kind === "comma"))
    return refuse("text among the fraction's digits");
  return { items, fill };
}

/**
 * A numeric TO_CHAR as a DuckDB expression of `value`, from the documented
 * behaviour (Postgres Table 9.31's examples): the number rounded to the
 * pattern's fraction digits; each 9 before the first significant digit a
 * blank and each 0 from the first 0 on a digit; the sign, without S, MI or
 * PR, in a position of its own just before the first digit written (a blank
 * for a positive number); FM drops the blanks and the fraction's trailing
 * zeros after its last 0. What the examples leave open is an error when it
 * runs: a number with more integer digits than the pattern has (the
 * warehouse writes #), a negative number that rounds to zero, zero written
 * without a 0 position, a float with more than 15 significant digits.
 */
export function numberPattern(format: string, dialect: "postgres" | "redshift"): ((value: string) => string) | Refusal {
  const read = readNumberPattern(format, dialect);
  if ("refuse" in read) return read;
  const { items, fill } = read;
  const integerDigits = items.filter((item) => item.kind === "digit" && !item.fraction) as { zero: boolean }[];
  const fractionDigits = items.filter((item) => item.kind === "digit" && item.fraction) as { zero: boolean }[];
  const P = integerDigits.length;
  const Q = fractionDigits.length;
  const firstZero = integerDigits.findIndex((digit) => digit.zero);
  const Z = firstZero < 0 ? P + 1 : firstZero + 1;
  const lastFractionZero = fractionDigits.reduce((last, digit, k) => (digit.zero ? k + 1 : last), 0);
  const hasPoint = items.some((item) => item.kind === "point");
  const signItem = items.find((item) => item.kind === "sign") as { element: "S" | "MI" | "PR" } | undefined;
  const signLeads = signItem !== undefined && items.indexOf(signItem as NumberItem) < items.findIndex((item) => item.kind === "digit");
  const blank = fill ? "''" : "' '";
  // slp_n.neg, slp_n.i (integer digits, '' for a zero integer part when there is a fraction), slp_n.f (fraction digits); the first written position.
  const first = `least(${P} - length(slp_n.i) + 1, ${Z})`;
  const anchoredSign =
    signItem === undefined
      ? `case when slp_n.neg then '-' else ${blank} end`
      : signItem.element === "S" && signLeads
        ? "case when slp_n.neg then '-' else '+' end"
        : signItem.element === "PR"
          ? `case when slp_n.neg then '<' else ${blank} end`
          : "''";
  const pieces: string[] = [];
  let position = 0;
  for (const item of items) {
    if (item.kind === "literal") pieces.push(quote(item.text));
    else if (item.kind === "comma") pieces.push(`case when ${first} <= ${position} then ',' else ${blank} end`);
    else if (item.kind === "point") {
      pieces.push(`case when ${first} > ${P} then ${anchoredSign} else '' end`);
      pieces.push("'.'");
    } else if (item.kind === "digit" && !item.fraction) {
      position++;
      const k = position;
      pieces.push(
        `case when ${k} = ${first} then ${anchoredSign} else '' end || case when ${k} > ${P} - length(slp_n.i) then substr(slp_n.i, ${k} - (${P} - length(slp_n.i)), 1) when ${k} >= ${Z} then '0' else ${blank} end`,
      );
    } else if (item.kind === "digit" && item.fraction) {
      // The fraction is written whole at its first digit.
      if (fractionDigits.indexOf(item) === 0)
        pieces.push(fill ? `substr(slp_n.f, 1, greatest(${lastFractionZero}, length(rtrim(slp_n.f, '0'))))` : "slp_n.f");
    } else if (item.kind === "sign") {
      if (item.element === "S" && !signLeads) pieces.push("case when slp_n.neg then '-' else '+' end");
      else if (item.element === "MI") pieces.push(`case when slp_n.neg then '-' else ${blank} end`);
      else if (item.element === "PR") pieces.push(`case when slp_n.neg then '>' else ${blank} end`);
    }
  }
  const digits =
    Q > 0
      ? `case when __slp_kind(typeof(slp_v)) = 'float' then printf('%.${Q}f', abs(slp_v)) else cast(cast(round(abs(slp_v), ${Q}) as decimal(38, ${Q})) as varchar) end`
      : `case when __slp_kind(typeof(slp_v)) = 'float' then printf('%.0f', abs(slp_v)) else cast(cast(round(abs(slp_v), 0) as decimal(38, 0)) as varchar) end`;
  const checks = [
    `when __slp_kind(typeof(slp_v)) not in ('integer', 'decimal', 'float') then error('TO_CHAR with the number format ${format.replace(/'/g, "''")} of a ' || typeof(slp_v) || ': slp formats numbers with it')`,
    `when length(slp_n.i) > ${P} then error('TO_CHAR of ' || cast(slp_v as varchar) || ': more integer digits than the format ${format.replace(/'/g, "''")} has (the warehouse writes #): slp has not verified it')`,
    "when slp_n.neg and regexp_full_match(slp_n.i || slp_n.f, '0*') then error('TO_CHAR of a negative number that rounds to zero: slp has not verified its sign')",
    `when slp_n.i = '' and slp_n.f = '' and ${Z} > ${P} then error('TO_CHAR of zero with no 0 position: slp has not verified it')`,
    `when __slp_kind(typeof(slp_v)) = 'float' and length(ltrim(slp_n.i || slp_n.f, '0')) > 15 then error('TO_CHAR of a float with more than 15 significant digits: slp has not verified it')`,
  ];
  const body = `case when slp_v is null then null ${checks.join(" ")} else ${pieces.join(" || ")} end`;
  const integerPart =
    hasPoint && Q > 0
      ? "case when split_part(slp_d, '.', 1) = '0' then '' else split_part(slp_d, '.', 1) end"
      : "split_part(slp_d, '.', 1)";
  return (value) =>
    `list_transform([${value}], lambda slp_v: list_transform([${digits}], lambda slp_d: list_transform([struct_pack(neg := slp_v < 0, i := ${integerPart}, f := split_part(slp_d, '.', 2))], lambda slp_n: ${body})[1])[1])[1]`;
}

/** Whether a Postgres/Redshift format is a number format: it has a digit position (9 or 0) outside quotes. */
export function isNumberFormat(format: string): boolean {
  return /[90]/.test(format.replace(/"[^"]*"/g, ""));
}

/**
 * Postgres and Redshift TO_CHAR(value, 'literal format'): a number format
 * (a 9 or 0 in it) for a number, else a date and time format for a date or
 * timestamp (text read as a timestamp; a number, an interval, or a value of
 * the other kind is an error naming it).
 */
export function postgresToChar(dialect: "postgres" | "redshift") {
  return (call: Call): string | Refusal => {
    const format = call.literal(1);
    if (call.args.length !== 2 || format === null || !/^\s*'/.test(call.args[1] as string))
      return { refuse: "slp translates to_char(value, 'literal format') only" };
    const value = call.args[0] as string;
    if (isNumberFormat(format)) {
      const build = numberPattern(format, dialect);
      return "refuse" in build ? build : raw(value, build(rawArgument(0)));
    }
    const pattern = datetimePattern(format, dialect);
    if ("refuse" in pattern) return pattern;
    const pieces = pattern("slp_t");
    const escaped = format.replace(/'/g, "''");
    return raw(
      value,
      `list_transform([${rawArgument(0)}], lambda slp_v: case when slp_v is null then null when typeof(slp_v) not in ('DATE', 'TIMESTAMP', 'TIMESTAMP WITH TIME ZONE', 'TIMESTAMP_S', 'TIMESTAMP_MS', 'TIMESTAMP_NS', 'VARCHAR') then error('TO_CHAR with the date format ${escaped} of a ' || typeof(slp_v) || ': slp formats dates and timestamps with it') else list_transform([cast(slp_v as timestamp)], lambda slp_t: ${pieces.length === 0 ? "''" : pieces.join(" || ")})[1] end)[1]`,
    );
  };
}

/**
 * A DuckDB expression of `values` (each where `rawArgument(n)` stands), carried through the transpiler as
 * `__slp_raw(value, ..., 'template')` and written out after it (translate.ts): its
 * lambdas and struct fields are DuckDB's, which the warehouse's parser would not read.
 */
/** Where a raw template takes its n-th value (text no format's own literal holds). */
export const rawArgument = (n: number) => `$slp_arg_${n}$`;

export function raw(values: string | string[], template: string): string {
  if (template.includes("\\")) throw new Error("a raw DuckDB template holds no backslash (a warehouse's string escapes could read it)");
  return `__slp_raw(${[values].flat().join(", ")}, '${template.replace(/'/g, "''")}')`;
}

/** Postgres's and Redshift's patterns as DuckDB's strptime reads them, for to_date and to_timestamp (longest first). */
const PARSE_ELEMENTS: [RegExp, string][] = [
  [/^YYYY/i, "%Y"],
  [/^HH24/i, "%H"],
  [/^HH12/i, "%I"],
  [/^HH/i, "%I"],
  [/^MONTH/i, "%B"],
  [/^MON/i, "%b"],
  [/^DDD/i, "%j"],
  [/^DD/i, "%d"],
  [/^MM/i, "%m"],
  [/^MI/i, "%M"],
  [/^SS/i, "%S"],
  [/^MS/i, "%g"],
  [/^US/i, "%f"],
  [/^(AM|PM|A\.M\.|P\.M\.)/i, "%p"],
];

/**
 * A Postgres / Redshift to_date or to_timestamp pattern as a strptime format,
 * or the refusal naming the element. The input's letter case is ignored (as
 * the warehouse ignores it); FM is read as nothing (strptime takes a field
 * with or without its leading zero). Where the warehouse is more lenient than
 * strptime (any separator for a separator; Redshift rolling June 31 over to
 * July 1 unless is_strict), DuckDB raises an error: never another date.
 * Two-digit years (the warehouse picks the year nearest 2020), ISO and
 * Julian fields, week numbers, time zones and FX are refused.
 */
export function parsePattern(format: string): string | Refusal {
  const refuse = (why: string): Refusal => ({ refuse: `the format '${format}': ${why}` });
  let out = "";
  let hour12 = false;
  let meridiem = false;
  for (let i = 0; i < format.length; ) {
    const rest = format.slice(i);
    if (rest.startsWith('"')) {
      const end = format.indexOf('"', i + 1);
      if (end < 0) return refuse("an unclosed quote");
      out += format.slice(i + 1, end).replace(/%/g, "%%");
      i = end + 1;
      continue;
    }
    if (/^FM/i.test(rest)) {
      i += 2;
      continue;
    }
    const found = PARSE_ELEMENTS.find(([pattern]) => pattern.test(rest));
    if (found) {
      const length = (found[0].exec(rest) as RegExpExecArray)[0].length;
      if (/^(TH|SP)/i.test(format.slice(i + length)))
        return refuse(`slp does not read the ${format.slice(i + length, i + length + 2)} suffix`);
      if (found[1] === "%I") hour12 = true;
      if (found[1] === "%p") meridiem = true;
      out += found[1];
      i += length;
      continue;
    }
    const char = format[i] as string;
    if (/[A-Za-z0-9]/.test(char))
      return refuse(
        `slp does not translate the pattern at '${rest}' (two-digit years, ISO, Julian and week fields, time zones and FX are not read)`,
      );
    out += char === "%" ? "%%" : char;
    i++;
  }
  if (hour12 !== meridiem) return refuse("a 12-hour field without AM or PM (or the reverse)");
  return out;
}

/** Postgres and Redshift to_date(text, 'format') and to_timestamp(text, 'format'); to_timestamp(number) is the epoch. */
export function postgresParse(kind: "date" | "timestamp", dialect: "postgres" | "redshift") {
  return (call: Call): string | Refusal => {
    if (kind === "timestamp" && call.args.length === 1 && dialect === "postgres") return `to_timestamp(${call.args[0]})`;
    const format = call.literal(1);
    const most = dialect === "redshift" ? 3 : 2;
    if (call.args.length < 2 || call.args.length > most || format === null || !/^\s*'/.test(call.written[1] ?? ""))
      return { refuse: `slp translates to_${kind}(text, 'literal format'${dialect === "redshift" ? "[, is_strict]" : ""}) only` };
    if (call.args.length === 3 && !/^\s*(true|false)\s*$/i.test(call.args[2] as string))
      return { refuse: "is_strict must be true or false" };
    const strptime = parsePattern(format);
    if (typeof strptime !== "string") return strptime;
    const parsed = `__slp_strptime(${call.args[0]}, '${strptime.replace(/'/g, "''")}')`;
    return kind === "date" ? `cast(${parsed} as date)` : `cast(${parsed} as timestamptz)`;
  };
}

/**
 * Postgres and Redshift to_number(text, 'format'): the digits the format's 9
 * and 0 positions take (at most as many before and after the point as it
 * has), its group separators skipped, the sign where its S, MI or PR (or, with
 * none, a leading minus) puts it, as a NUMERIC of the format's scale. Text
 * the documented examples do not cover (more digits than the format has, a
 * separator it lacks, no digit) is an error when it runs. D and G are the
 * point and the comma in Redshift (its documented to_number('12,454.8-',
 * '99G999D9S')); in Postgres they follow the locale, refused.
 */
export function postgresToNumber(dialect: "postgres" | "redshift") {
  return (call: Call): string | Refusal => {
    const format = call.literal(1);
    if (call.args.length !== 2 || format === null || !/^\s*'/.test(call.written[1] ?? ""))
      return { refuse: "slp translates to_number(text, 'literal format') only" };
    const refuse = (why: string): Refusal => ({ refuse: `the number format '${format}': ${why}` });
    let before = 0;
    let after = 0;
    let point = false;
    let comma = false;
    let sign: "S-lead" | "S-trail" | "MI" | "PR" | null = null;
    for (let i = 0; i < format.length; ) {
      const rest = format.slice(i);
      const char = format[i] as string;
      if (/^FM/i.test(rest)) i += 2;
      else if (char === "9" || char === "0") {
        if (point) after++;
        else before++;
        i++;
      } else if (char === "." || (dialect === "redshift" && /[Dd]/.test(char))) {
        if (point) return refuse("a second decimal point");
        point = true;
        i++;
      } else if (char === "," || (dialect === "redshift" && /[Gg]/.test(char))) {
        comma = true;
        i++;
      } else if (/^(S|MI|PR)/i.test(rest)) {
        const element = (/^(S|MI|PR)/i.exec(rest) as RegExpExecArray)[0].toUpperCase();
        if (sign !== null) return refuse("more than one sign element");
        const last = i + element.length === format.length;
        if (element === "S" && i === 0) sign = "S-lead";
        else if (!last) return refuse(`slp translates ${element} only at the end (or S at the start)`);
        else sign = element === "S" ? "S-trail" : (element as "MI" | "PR");
        i += element.length;
      } else
        return refuse(`slp does not translate '${rest}' (D, G and L follow the locale in Postgres; V, EEEE, RN and text are not read)`);
    }
    if (before + after === 0) return refuse("no digit position (9 or 0)");
    const negative =
      sign === "PR"
        ? "starts_with(slp_t, '<') and ends_with(slp_t, '>')"
        : sign === "S-trail" || sign === "MI"
          ? "ends_with(slp_t, '-')"
          : "starts_with(slp_t, '-')";
    const unsigned =
      sign === "PR"
        ? "case when starts_with(slp_t, '<') and ends_with(slp_t, '>') then substr(slp_t, 2, length(slp_t) - 2) else slp_t end"
        : sign === "S-trail" || sign === "MI"
          ? `regexp_replace(slp_t, '${sign === "MI" ? "[-]" : "[+-]"}$', '')`
          : "regexp_replace(slp_t, '^[+-]', '')";
    const body = comma ? `replace(trim(${unsigned}), ',', '')` : `trim(${unsigned})`;
    const shape = `[0-9]{0,${before}}${point ? `([.][0-9]{0,${after}})?` : ""}`;
    const escaped = format.replace(/'/g, "''");
    return raw(
      call.args[0] as string,
      `list_transform([trim(${rawArgument(0)})], lambda slp_t: case when slp_t is null then null else list_transform([struct_pack(neg := ${negative}, body := ${body})], lambda slp_n: case when not regexp_full_match(slp_n.body, '${shape}') or not regexp_matches(slp_n.body, '[0-9]') then error('to_number(''' || slp_t || ''', ''${escaped}''): text the format''s digits do not hold as slp has verified') when slp_n.neg then -cast(slp_n.body as decimal(38, ${after})) else cast(slp_n.body as decimal(38, ${after})) end)[1] end)[1]`,
    );
  };
}
