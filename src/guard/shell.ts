/**
 * Which paths a shell command line may write, as far as `slp guard` can
 * tell before it runs: the words of every command that is not a known
 * read-only one (cat, grep, git diff, ...), the targets of every `>`
 * redirection, and the words inside quoted scripts (`sh -c "..."`,
 * `python -c "..."`). It errs towards naming too much: a protected path the
 * command only reads, under a program slp does not know, is still refused.
 */

/** One simple command of a line: where it runs and the words that may name what it writes. */
export interface ShellWrite {
  cwd: string;
  word: string;
}

/** Programs that only read the paths they are given (their output redirections are still judged). */
const READ_ONLY = new Set([
  "cat",
  "less",
  "more",
  "head",
  "tail",
  "grep",
  "egrep",
  "fgrep",
  "rg",
  "ls",
  "wc",
  "diff",
  "stat",
  "file",
  "echo",
  "printf",
  "test",
  "[",
  "pwd",
  "which",
  "slp",
]);
/** git subcommands that change no file in the work tree. */
const GIT_READ_ONLY = new Set(["status", "diff", "log", "show", "blame", "ls-files", "grep", "rev-parse", "cat-file", "branch", "remote"]);
/** Interpreters whose first argument is the script they run (running tcr.sh is not writing it). */
const INTERPRETERS = new Set(["sh", "bash", "zsh", "dash"]);

const SEPARATORS = new Set([";", "&&", "||", "|", "&", "\n"]);
/** Longest first, so `&&` is not read as two `&`. */
const OPERATORS = ["&&", "||", ">>", ">|", "&>", ">&", "<>", ";", "|", "&", ">", "<", "\n"];
const OPERATOR_START = new Set([";", "|", "&", ">", "<", "\n"]);

interface Token {
  text: string;
  /** True for an operator (`;`, `|`, `>`), false for a word. */
  operator: boolean;
}

/** Splits a command line into words and operators, honouring quotes and backslashes. */
export function tokenize(line: string): Token[] {
  const tokens: Token[] = [];
  let word = "";
  let inWord = false;
  const flush = () => {
    if (inWord) tokens.push({ text: word, operator: false });
    word = "";
    inWord = false;
  };
  for (let i = 0; i < line.length; i++) {
    const char = line[i] as string;
    if (char === "'") {
      const end = line.indexOf("'", i + 1);
      word += line.slice(i + 1, end < 0 ? line.length : end);
      inWord = true;
      i = end < 0 ? line.length : end;
    } else if (char === '"') {
      let j = i + 1;
      for (; j < line.length && line[j] !== '"'; j++) {
        if (line[j] === "\\" && j + 1 < line.length) j++;
        word += line[j];
      }
      inWord = true;
      i = j;
    } else if (char === "\\" && i + 1 < line.length) {
      word += line[++i];
      inWord = true;
    } else if (char === " " || char === "\t") {
      flush();
    } else if (OPERATOR_START.has(char)) {
      // Digits glued before a redirection (2>) belong to it.
      const fd = /^\d+$/.test(word) && (char === ">" || char === "<") ? word : "";
      if (fd) {
        word = "";
        inWord = false;
      } else flush();
      const op = OPERATORS.find((candidate) => line.startsWith(candidate, i)) as string;
      tokens.push({ text: fd + op, operator: true });
      i += op.length - 1;
    } else {
      word += char;
      inWord = true;
    }
  }
  flush();
  return tokens;
}

/** Every word of `line` that may name a path the line writes, with the folder it is read from. */
export function shellWrites(line: string, cwd: string): ShellWrite[] {
  const writes: ShellWrite[] = [];
  let here = cwd;
  let words: string[] = [];
  const finish = () => {
    if (words.length > 0) {
      if (words[0] === "cd" && words[1]) here = joinCwd(here, words[1]);
      else for (const word of writtenWords(words)) writes.push({ cwd: here, word });
    }
    words = [];
  };
  const tokens = tokenize(line);
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i] as Token;
    if (!token.operator) {
      words.push(token.text);
      continue;
    }
    if (SEPARATORS.has(token.text)) {
      finish();
      continue;
    }
    if (/[<>]/.test(token.text)) {
      const target = tokens[i + 1];
      if (target && !target.operator) {
        // `2>&1` and `<` name no file written; `> file` always does.
        if (token.text.includes(">") && !/^\d+$/.test(target.text)) writes.push({ cwd: here, word: target.text });
        i++;
      }
    }
  }
  finish();
  return writes;
}

/** The words of one simple command that may name a path it writes. */
function writtenWords(words: readonly string[]): string[] {
  const [program = "", ...args] = words.filter((word) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(word) || word === words[words.length - 1]);
  const name = program.slice(program.lastIndexOf("/") + 1);
  if (READ_ONLY.has(name)) return [];
  if (name === "git" && GIT_READ_ONLY.has(args.find((arg) => !arg.startsWith("-")) ?? "")) return [];
  if (name === "find" && !args.some((arg) => /^-(delete|exec|execdir|ok|okdir|fprint|fprintf|fls)$/.test(arg))) return [];
  if (name === "sed" && !args.some((arg) => /^-[a-zA-Z]*i/.test(arg) || arg.startsWith("--in-place"))) return [];
  const candidates = INTERPRETERS.has(name) && args[0] && !args[0].startsWith("-") ? args.slice(1) : args;
  // Inside a quoted script (sh -c "...", python -c "...") every path-like piece counts.
  return candidates.flatMap((arg) => arg.split(/[\s'"`=<>|;&(),{}]+/)).filter((piece) => piece !== "" && !piece.startsWith("-"));
}

function joinCwd(cwd: string, dir: string): string {
  if (dir.startsWith("/")) return dir;
  const parts = cwd.split("/");
  for (const part of dir.split("/")) {
    if (part === "..") parts.pop();
    else if (part !== "." && part !== "") parts.push(part);
  }
  return parts.join("/") || "/";
}
