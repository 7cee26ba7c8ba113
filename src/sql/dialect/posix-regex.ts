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
  if (options.matchText && (alternation || nonGreedy) && !endsAnchored(pattern))
    return {
      refuse: `the pattern '${pattern}' has ${alternation ? "an alternation (|)" : "a non-greedy quantifier"}: POSIX takes the longest (or shortest) match where RE2 takes the first it finds, and slp cannot tell they agree (a pattern ending in $ is read)`,
    };
  return { re2: `(?s)${options.insensitive ? "(?i)" : ""}${out}`, asciiOnly };
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
const literalValue = (node: unknown): string | null => {
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
export function posixRewrite(dialect: "postgres" | "redshift") {
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
