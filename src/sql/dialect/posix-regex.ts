/**
 * Postgres and Redshift regular expressions (POSIX "advanced" REs, ARE) as
 * the RE2 patterns DuckDB's regexp functions read, or the refusal that names
 * the feature where the two engines differ. From the Postgres manual
 * (https://www.postgresql.org/docs/current/functions-matching.html#POSIX-SYNTAX-DETAILS)
 * and RE2's syntax (https://github.com/google/re2/wiki/Syntax):
 * - ARE's `.` and a negated bracket match a newline; RE2's `.` does not
 *   unless `(?s)`: every translation starts with `(?s)`.
 * - `\b` is a backspace and `\B` a backslash in ARE, word boundaries in RE2;
 *   ARE's word boundary `\y` (`\Y`) is RE2's `\b` (`\B`), its `\Z` is `\z`.
 * - Backreferences (`\1`), lookahead and lookbehind (`(?=`, `(?!`, `(?<=`,
 *   `(?<!`), the word starts and ends `\m`, `\M`, `[[:<:]]`, `[[:>:]]`,
 *   collating elements and equivalence classes, embedded options and the
 *   `***` directors have no RE2 form: refused by name.
 * - `\s` in ARE is `[[:space:]]`, which holds the vertical tab RE2's `\s` lacks.
 * - Character classes (`\w`, `[[:alpha:]]`, ...) and case-insensitive matching
 *   follow the database's locale for characters beyond ASCII in Postgres;
 *   Redshift documents its classes as ASCII only. Where the locale could
 *   matter, the text is checked when it runs (`__slp_posix_text`): a value
 *   with a character beyond ASCII is an error naming it, never a guess.
 * - A function that returns the text matched (regexp_replace, regexp_substr,
 *   regexp_count, ...) meets one difference more: among matches starting at
 *   the same place, ARE takes the longest (or, for a non-greedy RE, the
 *   shortest), RE2 the first its alternatives and quantifiers find. With an
 *   alternation (`a|ab`) or a non-greedy quantifier they can differ, so those
 *   are refused there unless the pattern ends in `$` (the match then ends at
 *   the text's end in both).
 */
import type { Call } from "./construct.ts";
import { raw, rawArgument } from "./format-models.ts";

/** Why a pattern cannot run, for the refusal. */
export interface RegexRefusal {
  refuse: string;
}

export interface Re2Pattern {
  /** The RE2 pattern, with `(?s)` (and `(?i)` when asked) in front. */
  re2: string;
  /** The meaning depends on the locale for characters beyond ASCII (a class, or case folding): check the text when it runs. */
  asciiOnly: boolean;
}

export interface PosixOptions {
  /** Postgres (classes follow the locale) or Redshift (classes are ASCII, as documented). */
  dialect: "postgres" | "redshift";
  /** Case-insensitive (`~*`, flag i). */
  insensitive: boolean;
  /** The function returns the matched text (not only whether it matches). */
  matchText: boolean;
}

const CLASSES = new Set(["alnum", "alpha", "blank", "cntrl", "digit", "graph", "lower", "print", "punct", "space", "upper", "xdigit"]);
/** Classes whose members beyond ASCII depend on the locale (digits and hex digits are ASCII in every locale). */
const LOCALE_CLASSES = new Set(["alnum", "alpha", "blank", "cntrl", "graph", "lower", "print", "punct", "space", "upper"]);

/** ARE's escapes of one character that stand for one character, as RE2 writes it. */
const CHARACTER_ESCAPES: Record<string, string> = {
  a: "\\x07",
  b: "\\x08",
  B: "\\\\",
  e: "\\x1B",
  f: "\\f",
  n: "\\n",
  r: "\\r",
  t: "\\t",
  v: "\\v",
};

/** A Postgres/Redshift POSIX pattern as RE2, or the refusal naming what differs. */
export function posixToRe2(pattern: string, options: PosixOptions): Re2Pattern | RegexRefusal {
  const refuse = (what: string): RegexRefusal => ({
    refuse: `the pattern '${pattern}' uses ${what}, which RE2 (DuckDB) does not read as POSIX does`,
  });
  if (pattern.startsWith("***")) return refuse("a *** director");
  if (pattern.startsWith("(?") && /^\(\?[a-z]+\)/.test(pattern)) return refuse("embedded options");
  let out = "";
  let asciiOnly = options.insensitive && options.dialect === "postgres";
  let alternation = false;
  let nonGreedy = false;
  let depth = 0;
  let i = 0;
  const localeClass = () => {
    if (options.dialect === "postgres") asciiOnly = true;
  };
  while (i < pattern.length) {
    const char = pattern[i] as string;
    if (char === "\\") {
      const next = pattern[i + 1];
      if (next === undefined) return refuse("a trailing backslash");
      if (/[1-9]/.test(next)) return refuse(`the backreference \\${next}`);
      if (next === "0") return refuse("an octal escape");
      if (next === "m" || next === "M") return refuse(`the word ${next === "m" ? "start" : "end"} \\${next}`);
      if (next === "c" || next === "u" || next === "U" || next === "x") return refuse(`the escape \\${next}`);
      if (next === "y" || next === "Y") {
        localeClass();
        out += next === "y" ? "\\b" : "\\B";
      } else if (next === "A") out += "\\A";
      else if (next === "Z") out += "\\z";
      else if (next === "d" || next === "D") out += next === "d" ? "[0-9]" : "[^0-9]";
      else if (next === "s" || next === "S") {
        localeClass();
        out += next === "s" ? "[\\t\\n\\v\\f\\r ]" : "[^\\t\\n\\v\\f\\r ]";
      } else if (next === "w" || next === "W") {
        localeClass();
        out += next === "w" ? "[[:alnum:]_]" : "[^[:alnum:]_]";
      } else if (CHARACTER_ESCAPES[next] !== undefined) out += CHARACTER_ESCAPES[next];
      else if (/[A-Za-z0-9]/.test(next)) return refuse(`the escape \\${next}`);
      else out += `\\${next}`;
      i += 2;
      continue;
    }
    if (char === "[") {
      const bracket = readBracket(pattern, i);
      if ("refuse" in bracket) return refuse(bracket.refuse);
      if (bracket.locale) localeClass();
      out += bracket.re2;
      i = bracket.end;
      continue;
    }
    if (char === "(") {
      if (pattern[i + 1] === "?") {
        if (pattern[i + 2] !== ":") return refuse(/^\(\?<?[=!]/.test(pattern.slice(i)) ? "a lookahead or lookbehind" : "a (? group");
        out += "(?:";
        i += 3;
      } else {
        out += "(";
        i++;
      }
      depth++;
      continue;
    }
    if (char === ")") depth--;
    if (char === "|") alternation = true;
    if (char === "{") {
      const bound = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(i));
      if (bound) {
        if (Number(bound[1]) > 255 || Number(bound[3] || 0) > 255) return refuse("a bound above 255 (an error in Postgres)");
        out += bound[0];
        i += bound[0].length;
        if (pattern[i] === "?") {
          nonGreedy = true;
          out += "?";
          i++;
        }
        continue;
      }
      return refuse("a { that starts no bound");
    }
    if ((char === "*" || char === "+" || char === "?") && pattern[i + 1] === "?") {
      nonGreedy = true;
      out += `${char}?`;
      i += 2;
      continue;
    }
    out += char;
    i++;
  }
  if (depth !== 0) return refuse("unbalanced parentheses");
  if (options.matchText && ((alternation && !literalAlternations(pattern)) || nonGreedy) && !endsAnchored(pattern))
    return {
      refuse: `the pattern '${pattern}' has ${alternation ? "an alternation (|)" : "a non-greedy quantifier"}: POSIX takes the longest (or shortest) match where RE2 takes the first it finds, and slp cannot tell they agree (a pattern ending in $ is read)`,
    };
  return { re2: `(?s)${options.insensitive ? "(?i)" : ""}${out}`, asciiOnly };
}

/**
 * Whether every alternation in the pattern chooses among plain texts (letters,
 * digits, spaces, escaped punctuation) none of which starts another
 * (`(org|edu|ca)`): then at most one alternative matches at a place, so the
 * longest and the first match are the same.
 */
function literalAlternations(pattern: string): boolean {
  const groups: { start: number; branches: number[] }[] = [{ start: 0, branches: [] }];
  const spans: [number, number[], number][] = [];
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i];
    if (char === "\\") i++;
    else if (char === "[") {
      const bracket = readBracket(pattern, i);
      if ("refuse" in bracket) return false;
      i = bracket.end - 1;
    } else if (char === "(") groups.push({ start: pattern[i + 1] === "?" ? i + 3 : i + 1, branches: [] });
    else if (char === "|") (groups[groups.length - 1] as { branches: number[] }).branches.push(i);
    else if (char === ")") {
      const group = groups.pop();
      if (group && group.branches.length > 0) spans.push([group.start, group.branches, i]);
    }
  }
  const top = groups[0];
  if (top && top.branches.length > 0) spans.push([0, top.branches, pattern.length]);
  for (const [start, bars, end] of spans) {
    const cuts = [start - 1, ...bars, end];
    const branches = cuts.slice(1).map((cut, k) => pattern.slice((cuts[k] as number) + 1, cut));
    if (!branches.every((branch) => /^([A-Za-z0-9 _-]|\\[^A-Za-z0-9])*$/.test(branch) && branch !== "")) return false;
    const texts = branches.map((branch) => branch.replace(/\\(.)/g, "$1"));
    if (texts.some((text, k) => texts.some((other, j) => j !== k && other.startsWith(text)))) return false;
  }
  return true;
}

/** Whether the pattern's last character is a `$` outside brackets and escapes, with no alternation outside parentheses. */
function endsAnchored(pattern: string): boolean {
  if (!pattern.endsWith("$") || pattern.endsWith("\\$")) return false;
  let depth = 0;
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i];
    if (char === "\\") i++;
    else if (char === "[") {
      const bracket = readBracket(pattern, i);
      if ("refuse" in bracket) return false;
      i = bracket.end - 1;
    } else if (char === "(") depth++;
    else if (char === ")") depth--;
    else if (char === "|" && depth === 0) return false;
  }
  return true;
}

/** A bracket expression from `[` at `start`: its RE2 text, where it ends, whether a class in it follows the locale. */
function readBracket(pattern: string, start: number): { re2: string; end: number; locale: boolean } | RegexRefusal {
  let i = start + 1;
  let out = "[";
  let locale = false;
  if (pattern[i] === "^") {
    out += "^";
    i++;
  }
  // A ] first is a member, not the end.
  if (pattern[i] === "]") {
    out += "\\]";
    i++;
  }
  while (i < pattern.length) {
    const char = pattern[i] as string;
    if (char === "]") return { re2: `${out}]`, end: i + 1, locale };
    if (char === "[" && /[:.=]/.test(pattern[i + 1] ?? "")) {
      const kind = pattern[i + 1] as string;
      const close = pattern.indexOf(`${kind}]`, i + 2);
      if (close < 0) return { refuse: "an unclosed [: :], [. .] or [= =]" };
      const name = pattern.slice(i + 2, close);
      if (kind !== ":") return { refuse: kind === "." ? "a collating element [. .]" : "an equivalence class [= =]" };
      if (name === "<" || name === ">") return { refuse: `the word ${name === "<" ? "start" : "end"} [[:${name}:]]` };
      if (!CLASSES.has(name)) return { refuse: `the character class [:${name}:]` };
      if (LOCALE_CLASSES.has(name)) locale = true;
      out += `[:${name}:]`;
      i = close + 2;
      continue;
    }
    if (char === "\\") {
      const next = pattern[i + 1];
      if (next === undefined) return { refuse: "a trailing backslash" };
      if (next === "d") out += "0-9";
      else if (next === "s") {
        locale = true;
        out += "\\t\\n\\v\\f\\r ";
      } else if (next === "w") {
        locale = true;
        out += "[:alnum:]_";
      } else if (CHARACTER_ESCAPES[next] !== undefined) out += CHARACTER_ESCAPES[next];
      else if (/[A-Za-z0-9]/.test(next)) return { refuse: `the escape \\${next} in brackets` };
      else out += `\\${next}`;
      i += 2;
      continue;
    }
    // RE2 reads [ and other punctuation in brackets as ARE does, but an unescaped [ could start a class there.
    out += char === "[" ? "\\[" : char;
    i++;
  }
  return { refuse: "an unclosed bracket expression" };
}

/**
 * SQL's SIMILAR TO pattern (Postgres, Redshift) as an RE2 pattern that must
 * match the whole text: `%` is `.*`, `_` is `.`, `|`, `*`, `+`, `?`, `{m,n}`,
 * `( )` and `[ ]` as in a regular expression, every other character itself,
 * the backslash (or the ESCAPE character) escaping the next one
 * (https://www.postgresql.org/docs/current/functions-matching.html#FUNCTIONS-SIMILARTO-REGEXP).
 */
export function similarToRe2(pattern: string, escapeWritten: string | null): { re2: string } | RegexRefusal {
  const refuse = (what: string): RegexRefusal => ({
    refuse: `the SIMILAR TO pattern '${pattern}' uses ${what}, which slp does not translate`,
  });
  if (escapeWritten !== null && escapeWritten.length !== 1) return refuse("an escape that is not one character");
  const escapeChar = escapeWritten ?? "\\";
  let out = "";
  let inBracket = false;
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i] as string;
    if (char === escapeChar) {
      const next = pattern[i + 1];
      if (next === undefined) return refuse("a trailing escape");
      if (next === '"') return refuse("the escape-double-quote (substring) separator");
      if (/[A-Za-z0-9]/.test(next)) return refuse(`the regular-expression escape ${escapeChar}${next}`);
      out += `\\${next}`;
      i++;
      continue;
    }
    if (inBracket) {
      if (char === "]") inBracket = false;
      if (char === "[" && pattern[i + 1] === ":") return refuse("a character class");
      out += char === "\\" ? "\\\\" : char;
      continue;
    }
    if (char === "%") out += ".*";
    else if (char === "_") out += ".";
    else if (char === "[") {
      inBracket = true;
      out += "[";
      if (pattern[i + 1] === "]" || (pattern[i + 1] === "^" && pattern[i + 2] === "]")) return refuse("a ] first in brackets");
    } else if ("|*+?(){}".includes(char)) {
      if (char === "(" && pattern[i + 1] === "?") return refuse("(?");
      out += char;
    } else out += /[A-Za-z0-9 ]/.test(char) || char.charCodeAt(0) > 127 ? char : `\\${char}`;
  }
  if (inBracket) return refuse("an unclosed bracket");
  return { re2: `(?s)${out}` };
}

/** slp's DuckDB macro that checks, when it runs, that a text a locale-dependent pattern reads is ASCII. */
export const POSIX_TEXT_MACRO = "__slp_posix_text";
/** slp's DuckDB macros for a partial and a whole match (names the transpiler passes through as written). */
export const REGEXP_CONTAINS_MACRO = "__slp_regexp_contains";
export const REGEXP_FULL_MATCH_MACRO = "__slp_regexp_full_match";
/** The macros a rewritten SQL may call. */
export const POSIX_MACROS = [POSIX_TEXT_MACRO, REGEXP_CONTAINS_MACRO, REGEXP_FULL_MATCH_MACRO];

type TreeNode = { [kind: string]: unknown };
const stringNode = (value: string): TreeNode => ({ literal: { literal_type: "string", value } });
const callNode = (name: string, args: unknown[]): TreeNode => ({
  function: { name, args, distinct: false, trailing_comments: [], use_bracket_syntax: false, no_parens: false, quoted: false },
});
const literalOf = (node: unknown): string | null => {
  const literal = (node as { literal?: { literal_type?: string; value?: unknown } } | null)?.literal;
  return literal?.literal_type === "string" && typeof literal.value === "string" ? literal.value : null;
};

/** The text a pattern reads, checked to be ASCII when the pattern's meaning beyond ASCII follows the locale. */
function checkedText(value: unknown, pattern: Re2Pattern): unknown {
  return pattern.asciiOnly ? callNode(POSIX_TEXT_MACRO, [value]) : value;
}

/**
 * The rewrite of one node of the syntax tree (transpiler.ts rewriteTree) for
 * Postgres and Redshift: `x ~ p`, `x ~* p` (and regexp_like(x, p, flags)) as
 * DuckDB's regexp_matches of the RE2 form of p; `x SIMILAR TO p` as a match
 * of the whole text. A pattern not written as a literal is refused: slp reads
 * a pattern before it runs.
 */
export function posixRewrite(dialect: "postgres" | "redshift", carried: (literal: string) => string = (literal) => literal) {
  const literalValue = (node: unknown): string | null => {
    const value = literalOf(node);
    return value === null ? null : carried(value);
  };
  return (node: TreeNode): TreeNode | { refuse: string } | undefined => {
    const [kind] = Object.keys(node);
    if (kind === "regexp_like" || kind === "regexp_i_like") {
      const match = node[kind] as { this: unknown; pattern?: unknown; expression?: unknown; flags?: unknown; flag?: unknown };
      const written = literalValue(match.pattern ?? match.expression);
      const operator = kind === "regexp_i_like" ? "~*" : "~";
      if (written === null) return { refuse: `${operator}: slp translates a POSIX pattern written as a string literal only` };
      let insensitive = kind === "regexp_i_like";
      const flagsNode = match.flags ?? match.flag ?? null;
      if (flagsNode !== null) {
        const flags = literalValue(flagsNode);
        if (flags === null || !/^[ci]*$/.test(flags))
          return { refuse: `${operator}: slp translates the flags i and c only, written as a literal` };
        insensitive = flags.lastIndexOf("i") > flags.lastIndexOf("c");
      }
      const pattern = posixToRe2(written, { dialect, insensitive, matchText: false });
      if ("refuse" in pattern) return { refuse: `${operator}: ${pattern.refuse}` };
      return callNode(REGEXP_CONTAINS_MACRO, [checkedText(match.this, pattern), stringNode(pattern.re2)]);
    }
    if (kind === "similar_to") {
      const similar = node[kind] as { this: unknown; pattern: unknown; escape: unknown; not: boolean };
      const written = literalValue(similar.pattern);
      const escapeWritten = similar.escape === null ? null : literalValue(similar.escape);
      if (written === null || (similar.escape !== null && escapeWritten === null))
        return { refuse: "similar to: slp translates a pattern (and escape) written as a string literal only" };
      const pattern = similarToRe2(written, escapeWritten);
      if ("refuse" in pattern) return { refuse: `similar to: ${pattern.refuse}` };
      const matched = callNode(REGEXP_FULL_MATCH_MACRO, [similar.this, stringNode(pattern.re2)]);
      return similar.not ? { not: { this: matched } } : matched;
    }
    return undefined;
  };
}

/** A call's argument `index` as the pattern the warehouse reads (its literal value, as the lexical layer read it), or a refusal. */
function patternArgument(call: Call, index: number): string | RegexRefusal {
  const literal = call.literal(index);
  const written = call.written[index] ?? "";
  if (literal === null || !/^\s*'/.test(written))
    return { refuse: `slp translates ${call.name} with a pattern written as a string literal only (it reads the pattern before it runs)` };
  // The lexical layer (lexical-rules.ts) has read the literal as the warehouse reads it (Redshift's backslash escapes).
  return literal;
}

const sqlString = (value: string) => `'${value.replace(/'/g, "''")}'`;

/** Whether a pattern reads where its text starts: a ^ or a constraint escape (\A \y \Y \m \M) outside brackets. */
function anchored(pattern: string): boolean {
  const outside = pattern.replace(/\\[\s\S]/g, (escaped) => (/^\\[AyYmMbB]$/.test(escaped) ? "^" : "")).replace(/\[\^?\]?[^\]]*\]/g, "");
  return outside.includes("^");
}

/** The (already rewritten) text argument, checked to be ASCII when the pattern's meaning beyond ASCII follows the locale. */
const textOf = (call: Call, pattern: Re2Pattern) => (pattern.asciiOnly ? `${POSIX_TEXT_MACRO}(${call.args[0]})` : (call.args[0] as string));

/** The number of capturing groups in an RE2 pattern slp wrote (posixToRe2): `(` not escaped, not in brackets, not `(?`. */
function capturingGroups(re2: string): number {
  let count = 0;
  for (let i = 0; i < re2.length; i++) {
    const char = re2[i];
    if (char === "\\") i++;
    else if (char === "[") {
      // Past the bracket: a ] first (or after ^) is a member.
      i += re2[i + 1] === "^" ? 2 : 1;
      if (re2[i] === "]" || (re2[i] === "\\" && re2[i + 1] === "]")) i += re2[i] === "\\" ? 2 : 1;
      while (i < re2.length && re2[i] !== "]") {
        if (re2[i] === "\\") i++;
        else if (re2[i] === "[" && re2[i + 1] === ":") i = re2.indexOf(":]", i + 2) + 1;
        i++;
      }
    } else if (char === "(" && re2[i + 1] !== "?") count++;
  }
  return count;
}

/**
 * The rewrites of Postgres's and Redshift's regular-expression functions:
 * each pattern (a literal) read as RE2 (posixToRe2, the functions that return
 * matched text refusing what POSIX's longest match could read otherwise), and
 * each function's flags or parameters as DuckDB's.
 */
export const POSIX_FUNCTIONS = {
  /** Postgres regexp_like(string, pattern[, flags of i and c]). */
  regexpLike(dialect: "postgres" | "redshift") {
    return (call: Call): string | RegexRefusal => {
      if (call.args.length < 2 || call.args.length > 3) return { refuse: "regexp_like takes a string, a pattern and flags" };
      const flags = call.args.length === 3 ? call.literal(2) : "";
      if (flags === null || !/^[ci]*$/.test(flags)) return { refuse: "slp translates the flags i and c only, written as a literal" };
      const written = patternArgument(call, 1);
      if (typeof written !== "string") return written;
      const pattern = posixToRe2(written, { dialect, insensitive: flags.lastIndexOf("i") > flags.lastIndexOf("c"), matchText: false });
      if ("refuse" in pattern) return pattern;
      return `${REGEXP_CONTAINS_MACRO}(${textOf(call, pattern)}, ${sqlString(pattern.re2)})`;
    };
  },
  /** Postgres regexp_replace(string, pattern, replacement[, flags of g and i]): the first match unless g; \& in a literal replacement is the whole match (RE2's \0). */
  postgresReplace(call: Call): string | RegexRefusal {
    const flags = call.args.length === 4 ? call.literal(3) : "";
    if ((call.args.length !== 3 && call.args.length !== 4) || flags === null || !/^[gi]*$/.test(flags))
      return { refuse: "slp translates regexp_replace(string, pattern, replacement[, flags of g and i]) only" };
    const written = patternArgument(call, 1);
    if (typeof written !== "string") return written;
    const pattern = posixToRe2(written, { dialect: "postgres", insensitive: flags.includes("i"), matchText: true });
    if ("refuse" in pattern) return pattern;
    const replacement = replacementOf(call, 2, "postgres");
    if (typeof replacement !== "string") return replacement;
    return `regexp_replace(${textOf(call, pattern)}, ${sqlString(pattern.re2)}, ${replacement}${flags.includes("g") ? ", 'g'" : ""})`;
  },
  /** Postgres regexp_count(string, pattern[, start]) and Redshift regexp_count(source, pattern): non-overlapping matches. */
  count(dialect: "postgres" | "redshift") {
    return (call: Call): string | RegexRefusal => {
      const most = dialect === "postgres" ? 3 : 2;
      if (call.args.length < 2 || call.args.length > most)
        return { refuse: `slp translates regexp_count(string, pattern${dialect === "postgres" ? "[, start]" : ""}) only` };
      const written = patternArgument(call, 1);
      if (typeof written !== "string") return written;
      const pattern = posixToRe2(written, { dialect, insensitive: false, matchText: true });
      if ("refuse" in pattern) return pattern;
      const text = textOf(call, pattern);
      return `__slp_regexp_count(${call.args.length === 3 ? `substr(${text}, ${call.args[2]})` : text}, ${sqlString(pattern.re2)})`;
    };
  },
  /** Postgres regexp_split_to_array(string, pattern): flags are refused. */
  splitToArray(call: Call): string | RegexRefusal {
    if (call.args.length !== 2) return { refuse: "slp translates regexp_split_to_array(string, pattern) only" };
    const written = patternArgument(call, 1);
    if (typeof written !== "string") return written;
    const pattern = posixToRe2(written, { dialect: "postgres", insensitive: false, matchText: true });
    if ("refuse" in pattern) return pattern;
    return `regexp_split_to_array(${textOf(call, pattern)}, ${sqlString(pattern.re2)})`;
  },
  /** Redshift REGEXP_REPLACE(source, pattern[, replacement[, position[, parameters of c and i]]]): every occurrence. */
  redshiftReplace(call: Call): string | RegexRefusal {
    const [source, , replacementArg = "''"] = call.args;
    if (source === undefined || call.args.length < 2 || call.args.length > 5)
      return { refuse: "regexp_replace takes a source, a pattern, a replacement, a position and parameters" };
    if (call.args.length >= 4 && call.literal(3) !== "1") return { refuse: "slp translates regexp_replace from position 1 only" };
    const parameters = call.args.length === 5 ? call.literal(4) : "";
    if (parameters === null || !/^[ci]*$/.test(parameters))
      return { refuse: "slp translates the parameters c and i only (PCRE patterns are refused)" };
    const written = patternArgument(call, 1);
    if (typeof written !== "string") return written;
    const insensitive = parameters.lastIndexOf("i") > parameters.lastIndexOf("c");
    const pattern = posixToRe2(written, { dialect: "redshift", insensitive, matchText: true });
    if ("refuse" in pattern) return pattern;
    const replacement = call.args.length >= 3 ? replacementOf(call, 2, "redshift") : replacementArg;
    if (typeof replacement !== "string") return replacement;
    return `regexp_replace(${textOf(call, pattern)}, ${sqlString(pattern.re2)}, ${replacement}, 'g')`;
  },
  /**
   * Postgres regexp_substr(string, pattern[, start[, N[, flags[, subexpr]]]])
   * and Redshift REGEXP_SUBSTR(source, pattern[, position[, occurrence[,
   * parameters]]]) (parameters c, i, e: the first group): the N-th
   * non-overlapping match (or its group), NULL when there is none. A start
   * other than 1 is read for a pattern with no anchor or word boundary.
   */
  substr(dialect: "postgres" | "redshift") {
    return (call: Call): string | RegexRefusal => {
      const most = dialect === "postgres" ? 6 : 5;
      if (call.args.length < 2 || call.args.length > most)
        return {
          refuse: `regexp_substr takes ${dialect === "postgres" ? "a string, a pattern, a start, N, flags and a group" : "a source, a pattern, a position, an occurrence and parameters"}`,
        };
      const flags = call.args.length >= 5 ? call.literal(4) : "";
      const allowed = dialect === "postgres" ? /^[ci]*$/ : /^[cie]*$/;
      if (flags === null || !allowed.test(flags))
        return {
          refuse: `slp translates the ${dialect === "postgres" ? "flags i and c" : "parameters c, i and e"} only, written as a literal`,
        };
      const written = patternArgument(call, 1);
      if (typeof written !== "string") return written;
      const insensitive = flags.lastIndexOf("i") > flags.lastIndexOf("c");
      const pattern = posixToRe2(written, { dialect, insensitive, matchText: true });
      if ("refuse" in pattern) return pattern;
      const start = call.args.length >= 3 ? call.literal(2) : "1";
      if (start === null || !/^\d+$/.test(start) || Number(start) < 1)
        return { refuse: "slp translates regexp_substr with a start written as a positive number" };
      if (start !== "1" && anchored(written))
        return { refuse: "slp translates regexp_substr from a start other than 1 only for a pattern without an anchor or a word boundary" };
      const group = dialect === "postgres" ? (call.args.length === 6 ? call.literal(5) : "0") : flags.includes("e") ? "1" : "0";
      if (group === null || !/^\d+$/.test(group)) return { refuse: "slp translates regexp_substr with a group written as a number" };
      if (Number(group) > capturingGroups(pattern.re2)) return { refuse: `the pattern '${written}' has no group ${group}` };
      const occurrence = call.args.length >= 4 ? (call.args[3] as string) : "1";
      const text = textOf(call, pattern);
      const from = start === "1" ? text : `substr(${text}, ${start})`;
      return `(regexp_extract_all(${from}, ${sqlString(pattern.re2)}, ${group}))[__slp_whole_index(${occurrence})]`;
    };
  },
  /**
   * Postgres regexp_instr(string, pattern[, start[, N[, endoption[, flags[,
   * subexpr]]]]]) and Redshift REGEXP_INSTR(source, pattern[, position[,
   * occurrence[, option[, parameters]]]]): where the N-th non-overlapping
   * match starts (endoption 1: the character after it ends), 0 when there is
   * none; from the lengths of the text between matches and of the matches. A
   * pattern that matches empty text is an error when it runs; a group's
   * position and a start other than 1 for a pattern with an anchor are refused.
   */
  instr(dialect: "postgres" | "redshift") {
    return (call: Call): string | RegexRefusal => {
      const most = dialect === "postgres" ? 7 : 6;
      if (call.args.length < 2 || call.args.length > most)
        return { refuse: "regexp_instr takes a string, a pattern, a start, N, an end option, flags and a group" };
      if (dialect === "postgres" && call.args.length === 7 && call.literal(6) !== "0")
        return { refuse: "slp translates regexp_instr of the whole match only (subexpr 0)" };
      const flags = call.args.length >= 6 ? call.literal(5) : "";
      if (flags === null || !/^[ci]*$/.test(flags)) return { refuse: "slp translates the flags i and c only, written as a literal" };
      const written = patternArgument(call, 1);
      if (typeof written !== "string") return written;
      const pattern = posixToRe2(written, { dialect, insensitive: flags.lastIndexOf("i") > flags.lastIndexOf("c"), matchText: true });
      if ("refuse" in pattern) return pattern;
      const start = call.args.length >= 3 ? call.literal(2) : "1";
      if (start === null || !/^\d+$/.test(start) || Number(start) < 1)
        return { refuse: "slp translates regexp_instr with a start written as a positive number" };
      if (start !== "1" && anchored(written))
        return { refuse: "slp translates regexp_instr from a start other than 1 only for a pattern without an anchor or a word boundary" };
      const end = call.args.length >= 5 ? call.literal(4) : "0";
      if (end !== "0" && end !== "1") return { refuse: "the end option is 0 or 1, written as a literal" };
      const occurrence = call.args.length >= 4 ? (call.args[3] as string) : "1";
      const text = textOf(call, pattern);
      const from = start === "1" ? text : `substr(${text}, ${start})`;
      return raw(
        [from, sqlString(pattern.re2), occurrence],
        `list_transform([struct_pack(parts := regexp_split_to_array(${rawArgument(0)}, ${rawArgument(1)}), matches := regexp_extract_all(${rawArgument(0)}, ${rawArgument(1)}, 0), n := __slp_whole_index(${rawArgument(2)}))], lambda slp_x: case when slp_x.matches is null then null when list_contains(slp_x.matches, '') then error('regexp_instr of a pattern that matches empty text: slp has not verified where the warehouse counts it') when slp_x.n > len(slp_x.matches) then 0 else ${Number(start) - 1} + 1 + list_sum(list_transform(slp_x.parts[1:slp_x.n], lambda slp_q: length(slp_q))) + coalesce(list_sum(list_transform(slp_x.matches[1:slp_x.n - 1], lambda slp_m: length(slp_m))), 0)${end === "1" ? " + length(slp_x.matches[slp_x.n])" : ""} end)[1]`,
      );
    };
  },
  /**
   * Postgres substring(string from pattern) (and substring(string, pattern)):
   * the text the first parenthesized part matched, or the whole match without
   * one; NULL when nothing matches. The SIMILAR form (… for escape) is refused.
   */
  postgresSubstring(call: Call): string | RegexRefusal | null {
    const fromForm = call.args.length === 1 ? /^([\s\S]*?)\s+from\s+('(?:[^']|'')*')\s*$/i.exec(call.written[0] as string) : null;
    const commaForm = call.args.length === 2 && /^\s*'/.test(call.written[1] as string) ? call.literal(1) : null;
    if (call.args.length === 1 && /\sfrom\s+'(?:[^']|'')*'\s+for\s+'/i.test(call.written[0] as string))
      return { refuse: "slp does not translate substring(string similar pattern escape) (the SQL-standard form with FOR 'escape')" };
    if (!fromForm && commaForm === null) return null;
    const written = fromForm ? (fromForm[2] as string).slice(1, -1).replace(/''/g, "'") : (commaForm as string);
    const pattern = posixToRe2(written, { dialect: "postgres", insensitive: false, matchText: true });
    if ("refuse" in pattern) return pattern;
    const text = fromForm ? (/^([\s\S]*?)\s+from\s+'/i.exec(call.args[0] as string)?.[1] ?? "") : (call.args[0] as string);
    const checked = pattern.asciiOnly ? `${POSIX_TEXT_MACRO}(${text})` : text;
    return `__slp_regexp_extract(${checked}, ${sqlString(pattern.re2)}, ${capturingGroups(pattern.re2) > 0 ? 1 : 0})`;
  },
};

/** A replacement as DuckDB's regexp_replace reads it: a literal's \& (Postgres: the whole match) as \0; \1 to \9 as they are. */
function replacementOf(call: Call, index: number, dialect: "postgres" | "redshift"): string | RegexRefusal {
  const literal = call.literal(index);
  if (literal === null || !/^\s*'/.test(call.written[index] ?? "")) {
    // A replacement computed when it runs: its backslashes would be read by RE2 where the warehouse reads them its way.
    return { refuse: `slp translates ${call.name} with a replacement written as a string literal only` };
  }
  const value = literal;
  // Postgres documents \1 to \9, \& and \\ in a replacement; Redshift documents none.
  if (dialect === "redshift" ? value.includes("\\") : /\\[^1-9&\\]/.test(value.replace(/\\\\/g, "")))
    return { refuse: `the replacement '${value}' has a backslash escape slp has not verified` };
  return sqlString(dialect === "postgres" ? value.replace(/\\&/g, "\\0") : value);
}
