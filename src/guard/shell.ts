/**
 * A shell command line read the way a POSIX shell reads it, far enough for
 * `slp guard` to tell what it may write: words with their quoting kept
 * apart from what the shell expands (globs, variables, command
 * substitutions), operators, redirections, here-documents, subshells and
 * brace expansion. It runs nothing and expands nothing but braces; what
 * each program writes is commands.ts's business.
 */

/** One piece of a word: literal text (quoted or not), or something the shell expands when it runs. */
export type WordPart =
  | { kind: "text"; text: string; quoted: boolean }
  /** `$NAME` or `${NAME}`: a variable, known when the line assigned it a literal. */
  | { kind: "variable"; name: string; source: string }
  /** `$(...)`, backticks, `${...}` with an operator, `$((...))`, `$'...'`, `~user`: decided only when it runs. */
  | { kind: "dynamic"; source: string };

export interface Word {
  parts: WordPart[];
  /** The word as written, for messages. */
  source: string;
}

export interface Redirect {
  /** `>`, `>>`, `<`, `<<`, `<<<`, `>&`, `&>`, ... with any file descriptor number. */
  op: string;
  target: Word | null;
  /** A here-document's or here-string's text (what the program reads on stdin). */
  body?: string;
}

export interface SimpleCommand {
  words: Word[];
  redirects: Redirect[];
  /** True when its stdin is the previous command's stdout (`a | b`). */
  piped: boolean;
}

/** The line as a flat sequence: commands, and the subshell brackets around some of them. */
export type Item = { kind: "command"; command: SimpleCommand } | { kind: "open" } | { kind: "close" };

export interface ParsedLine {
  items: Item[];
  /** The command lines inside `$(...)`, backticks and `<(...)`/`>(...)`: they run too. */
  nested: string[];
}

/** Longest first. */
const OPERATORS = [
  "&>>",
  "<<<",
  "<<-",
  "&&",
  "||",
  "|&",
  ";;",
  ">>",
  ">|",
  "&>",
  ">&",
  "<&",
  "<>",
  "<<",
  ";",
  "|",
  "&",
  ">",
  "<",
  "(",
  ")",
  "\n",
];
const OPERATOR_START = new Set([";", "|", "&", ">", "<", "(", ")", "\n"]);
const SEPARATORS = new Set([";", "&&", "||", "&", "\n", ";;"]);
/** Brace expansion may not multiply one word past this; beyond, the word is left unexpanded (and so undecided). */
const MAX_BRACE_WORDS = 256;

interface RawToken {
  text: string;
  operator: boolean;
  /** For `<<` and `<<-`: the here-document's body, filled in at the next newline. */
  body?: string;
}

/** Splits a line into raw words (quotes kept) and operators, reading here-document bodies. */
export function tokenize(line: string): RawToken[] {
  const tokens: RawToken[] = [];
  const pendingHeredocs: { token: RawToken; delimiter: string; stripTabs: boolean }[] = [];
  let i = 0;
  let word = "";
  const flush = () => {
    if (word !== "") tokens.push({ text: word, operator: false });
    word = "";
  };
  while (i < line.length) {
    const char = line[i] as string;
    if (char === "\\" && line[i + 1] === "\n") {
      i += 2;
      continue;
    }
    if (char === "#" && word === "") {
      while (i < line.length && line[i] !== "\n") i++;
      continue;
    }
    if (char === "'" || char === '"' || char === "`" || char === "\\" || (char === "$" && /[({'"]/.test(line[i + 1] ?? ""))) {
      const end = skipQuoted(line, i);
      word += line.slice(i, end);
      i = end;
      continue;
    }
    if ((char === "<" || char === ">") && line[i + 1] === "(") {
      const end = skipQuoted(line, i + 1);
      word += line.slice(i, end);
      i = end;
      continue;
    }
    if (char === " " || char === "\t") {
      flush();
      i++;
      continue;
    }
    if (OPERATOR_START.has(char)) {
      // Digits glued before a redirection (2>) belong to it.
      const fd = /^\d+$/.test(word) && (char === ">" || char === "<") ? word : "";
      if (fd) word = "";
      else flush();
      const op = OPERATORS.find((candidate) => line.startsWith(candidate, i)) as string;
      const token: RawToken = { text: fd + op, operator: true };
      tokens.push(token);
      i += op.length;
      if (op === "<<" || op === "<<-") {
        while (line[i] === " " || line[i] === "\t") i++;
        let end = i;
        while (end < line.length && !/[\s;|&<>()]/.test(line[end] as string))
          end = /['"\\]/.test(line[end] as string) ? skipQuoted(line, end) : end + 1;
        const delimiter = line.slice(i, end).replace(/['"\\]/g, "");
        tokens.push({ text: line.slice(i, end), operator: false });
        pendingHeredocs.push({ token, delimiter, stripTabs: op === "<<-" });
        i = end;
      }
      if (op === "\n" && pendingHeredocs.length > 0) {
        for (const heredoc of pendingHeredocs.splice(0)) {
          const lines: string[] = [];
          while (i < line.length) {
            const eol = line.indexOf("\n", i);
            const text = line.slice(i, eol < 0 ? line.length : eol);
            i = eol < 0 ? line.length : eol + 1;
            if ((heredoc.stripTabs ? text.replace(/^\t+/, "") : text) === heredoc.delimiter) break;
            lines.push(heredoc.stripTabs ? text.replace(/^\t+/, "") : text);
          }
          heredoc.token.body = lines.length > 0 ? `${lines.join("\n")}\n` : "";
        }
      }
      continue;
    }
    word += char;
    i++;
  }
  flush();
  // A here-document with no newline after its line has no body.
  for (const heredoc of pendingHeredocs) heredoc.token.body = "";
  return tokens;
}

/** The index just past the quoted or bracketed run starting at `start` (`'...'`, `"..."`, `` `...` ``, `\x`, `$(...)`, `${...}`, `$'...'`, `(...)`). */
function skipQuoted(line: string, start: number): number {
  const char = line[start] as string;
  if (char === "\\") return Math.min(start + 2, line.length);
  if (char === "'") {
    const end = line.indexOf("'", start + 1);
    return end < 0 ? line.length : end + 1;
  }
  if (char === '"' || char === "`") {
    let j = start + 1;
    while (j < line.length && line[j] !== char) {
      if (line[j] === "\\") j += 2;
      else if (char === '"' && line[j] === "$" && /[({]/.test(line[j + 1] ?? "")) j = skipQuoted(line, j);
      else j++;
    }
    return Math.min(j + 1, line.length);
  }
  if (char === "$") {
    const next = line[start + 1];
    if (next === "'" || next === '"') return skipQuoted(line, start + 1);
    return skipBracket(line, start + 1);
  }
  return skipBracket(line, start);
}

/** Past the bracket opened at `start` (`(` or `{`), quotes and nested brackets honoured. */
function skipBracket(line: string, start: number): number {
  const open = line[start] as string;
  const close = open === "(" ? ")" : "}";
  let depth = 0;
  let j = start;
  while (j < line.length) {
    const c = line[j] as string;
    if (c === "'" || c === '"' || c === "`" || c === "\\") {
      j = skipQuoted(line, j);
      continue;
    }
    if (c === open) depth++;
    else if (c === close && --depth === 0) return j + 1;
    j++;
  }
  return line.length;
}

/**
 * Bash's brace expansion of a raw word (`build/{a,b}` is two words); quoted
 * braces stay. Null when it would make more than MAX_BRACE_WORDS words: the
 * word is then decided only when it runs.
 */
export function expandBraces(raw: string): string[] | null {
  const budget = { left: MAX_BRACE_WORDS * 4 };
  try {
    const words = expand(raw, budget);
    return words.length > MAX_BRACE_WORDS ? null : words;
  } catch (error) {
    if (error === BUDGET_SPENT) return null;
    throw error;
  }
}

const BUDGET_SPENT = new Error("brace expansion budget spent");

function expand(raw: string, budget: { left: number }): string[] {
  if (--budget.left < 0) throw BUDGET_SPENT;
  let depth = 0;
  let open = -1;
  const commas: number[] = [];
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i] as string;
    if (c === "\\" || c === "'" || c === '"' || c === "`" || (c === "$" && /[({'"]/.test(raw[i + 1] ?? ""))) {
      i = skipQuoted(raw, i) - 1;
      continue;
    }
    if (c === "{") {
      if (depth++ === 0) {
        open = i;
        commas.length = 0;
      }
    } else if (c === "}" && depth > 0) {
      if (--depth === 0) {
        const body = raw.slice(open + 1, i);
        let options: string[] | null = null;
        if (commas.length > 0) {
          const bounds = [open, ...commas, i];
          options = bounds.slice(1).map((end, k) => raw.slice((bounds[k] as number) + 1, end));
        } else {
          const range = /^(-?\d+|[a-zA-Z])\.\.(-?\d+|[a-zA-Z])$/.exec(body);
          if (range) options = sequence(range[1] as string, range[2] as string);
        }
        if (options === null) continue;
        const words: string[] = [];
        for (const option of options) {
          for (const word of expand(`${raw.slice(0, open)}${option}${raw.slice(i + 1)}`, budget)) {
            words.push(word);
            if (words.length > MAX_BRACE_WORDS) throw BUDGET_SPENT;
          }
        }
        return words;
      }
    } else if (c === "," && depth === 1) commas.push(i);
  }
  return [raw];
}

function sequence(from: string, to: string): string[] | null {
  const numeric = /^-?\d+$/.test(from);
  const a = numeric ? Number(from) : from.charCodeAt(0);
  const b = numeric ? Number(to) : to.charCodeAt(0);
  if (Math.abs(b - a) > MAX_BRACE_WORDS) return null;
  const step = a <= b ? 1 : -1;
  const out: string[] = [];
  for (let n = a; step > 0 ? n <= b : n >= b; n += step) out.push(numeric ? String(n) : String.fromCharCode(n));
  return out;
}

/** A raw word's parts: quotes removed, expansions kept as what they are. Substitutions found are added to `nested`. */
export function parseWord(raw: string, nested: string[]): Word {
  const parts: WordPart[] = [];
  const text = (value: string, quoted: boolean) => {
    const last = parts[parts.length - 1];
    if (last?.kind === "text" && last.quoted === quoted) last.text += value;
    else parts.push({ kind: "text", text: value, quoted });
  };
  const expansion = (source: string) => {
    const name = /^\$(?:([A-Za-z_][A-Za-z0-9_]*)|\{([A-Za-z_][A-Za-z0-9_]*)\})$/.exec(source);
    if (name) parts.push({ kind: "variable", name: (name[1] ?? name[2]) as string, source });
    else {
      if (source.startsWith("$(") && !source.startsWith("$((")) nested.push(source.slice(2, -1));
      else if (source.startsWith("`")) nested.push(source.slice(1, -1).replace(/\\([`\\$])/g, "$1"));
      parts.push({ kind: "dynamic", source });
    }
  };
  let i = 0;
  if (raw.startsWith("~")) {
    const end = raw.indexOf("/") < 0 ? raw.length : raw.indexOf("/");
    parts.push({ kind: "dynamic", source: raw.slice(0, end) });
    i = end;
  }
  while (i < raw.length) {
    const c = raw[i] as string;
    if (c === "\\") {
      text(raw[i + 1] ?? "", true);
      i += 2;
    } else if (c === "'") {
      const end = skipQuoted(raw, i);
      text(raw.slice(i + 1, end - 1), true);
      i = end;
    } else if (c === '"') {
      const end = skipQuoted(raw, i);
      let j = i + 1;
      while (j < end - 1) {
        const d = raw[j] as string;
        if (d === "\\" && /[$`"\\\n]/.test(raw[j + 1] ?? "")) {
          text(raw[j + 1] as string, true);
          j += 2;
        } else if (d === "$" || d === "`") {
          const stop = d === "`" || /[({]/.test(raw[j + 1] ?? "") ? skipQuoted(raw, j) : variableEnd(raw, j);
          if (stop === j + 1) text("$", true);
          else expansion(raw.slice(j, stop));
          j = stop;
        } else {
          text(d, true);
          j++;
        }
      }
      i = end;
    } else if (c === "`" || (c === "$" && /[({'"]/.test(raw[i + 1] ?? ""))) {
      const end = skipQuoted(raw, i);
      expansion(raw.slice(i, end));
      i = end;
    } else if (c === "$" && /[A-Za-z_0-9@*#?$!-]/.test(raw[i + 1] ?? "")) {
      const end = variableEnd(raw, i);
      expansion(raw.slice(i, end));
      i = end;
    } else if ((c === "<" || c === ">") && raw[i + 1] === "(") {
      const end = skipQuoted(raw, i + 1);
      nested.push(raw.slice(i + 2, end - 1));
      parts.push({ kind: "dynamic", source: raw.slice(i, end) });
      i = end;
    } else {
      text(c, false);
      i++;
    }
  }
  return { parts, source: raw };
}

function variableEnd(raw: string, start: number): number {
  if (/[0-9@*#?$!-]/.test(raw[start + 1] ?? "")) return start + 2;
  let j = start + 1;
  while (j < raw.length && /[A-Za-z0-9_]/.test(raw[j] as string)) j++;
  return j;
}

/** Reads a command line into commands, subshell brackets and the command lines nested in it. */
export function parseLine(line: string): ParsedLine {
  const items: Item[] = [];
  const nested: string[] = [];
  let current: SimpleCommand = { words: [], redirects: [], piped: false };
  const finish = (piped: boolean) => {
    if (current.words.length > 0 || current.redirects.length > 0) items.push({ kind: "command", command: current });
    current = { words: [], redirects: [], piped };
  };
  const tokens = tokenize(line);
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i] as RawToken;
    if (!token.operator) {
      const words = expandBraces(token.text);
      if (words === null) current.words.push({ parts: [{ kind: "dynamic", source: token.text }], source: token.text });
      else for (const raw of words) current.words.push(parseWord(raw, nested));
      continue;
    }
    const op = token.text;
    if (SEPARATORS.has(op)) finish(false);
    else if (op === "|" || op === "|&") finish(true);
    else if (op === "(") {
      finish(false);
      items.push({ kind: "open" });
    } else if (op === ")") {
      finish(false);
      items.push({ kind: "close" });
    } else {
      const next = tokens[i + 1];
      const target = next && !next.operator ? parseWord(next.text, nested) : null;
      if (target) i++;
      const redirect: Redirect = { op, target };
      if (op.endsWith("<<") || op.endsWith("<<-")) redirect.body = token.body ?? "";
      if (op.endsWith("<<<") && target) redirect.body = `${literalOf(target) ?? target.source}\n`;
      current.redirects.push(redirect);
    }
  }
  finish(false);
  return { items, nested };
}

/** The word's text when it has no expansion, else null. */
export function literalOf(word: Word): string | null {
  let text = "";
  for (const part of word.parts) {
    if (part.kind !== "text") return null;
    text += part.text;
  }
  return text;
}

/** The word's text with variables the line assigned put in; null when something in it is decided only at run time. */
export function substitute(word: Word, variables: ReadonlyMap<string, string>): string | null {
  let text = "";
  for (const part of word.parts) {
    if (part.kind === "text") text += part.text;
    else if (part.kind === "variable" && variables.has(part.name)) text += variables.get(part.name);
    else return null;
  }
  return text;
}

/** The first thing in a word that only the running shell decides (`$M`, `$(ls)`), for messages. */
export function dynamicPart(word: Word, variables: ReadonlyMap<string, string>): string | null {
  for (const part of word.parts) {
    if (part.kind === "dynamic") return part.source;
    if (part.kind === "variable" && !variables.has(part.name)) return part.source;
  }
  return null;
}

/** The word as a glob pattern when an unquoted `*`, `?` or `[` makes it one: quoted characters escaped with `\`. */
export function globOf(word: Word, variables: ReadonlyMap<string, string>): string | null {
  let pattern = "";
  let glob = false;
  for (const part of word.parts) {
    if (part.kind === "text" && !part.quoted) {
      if (/[*?[]/.test(part.text)) glob = true;
      pattern += part.text;
    } else {
      const value = part.kind === "text" ? part.text : part.kind === "variable" ? variables.get(part.name) : undefined;
      if (value === undefined) return null;
      // A variable's value is globbed too when unquoted; quoted text never is.
      if (part.kind === "variable" && /[*?[]/.test(value)) glob = true;
      pattern += part.kind === "variable" ? value : value.replace(/[*?[\]\\]/g, "\\$&");
    }
  }
  return glob ? pattern : null;
}
