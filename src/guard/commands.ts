/**
 * What a shell command line may write, as far as `slp guard` can tell before
 * it runs: for each program it knows, the operands it writes (cp's
 * destination, mv's every operand, a redirection's target, tar's extraction
 * folder, git checkout's paths); for what it cannot decide (a glob, a
 * variable, a substitution, an inline script, an archive's members, a git
 * command that rewrites the work tree) an effect that says so, which the
 * guard refuses when it could reach a protected path. And the few commands
 * that are the human's whatever they touch: `slp tcr --reset`,
 * `git commit --no-verify`, `core.hooksPath`.
 *
 * It errs towards naming too much: a program it does not know writes every
 * word it is given.
 */
import { posix } from "node:path";
import { dynamicPart, globOf, literalOf, parseLine, parseWord, substitute, type SimpleCommand, type Word } from "./shell.ts";

/** One thing a command line may do to the files, for the guard to judge. */
export type Effect =
  /** Writes (or removes) this path. */
  | { kind: "path"; cwd: string | null; path: string; via: string }
  /** Writes what this glob matches when it runs (git's pathspec globs match across `/`). */
  | { kind: "glob"; cwd: string | null; pattern: string; git: boolean; via: string }
  /** Writes files it names only when it runs, anywhere under `dir` (an archive, a patch, git reset --hard). */
  | { kind: "tree"; cwd: string | null; dir: string; via: string; why: string }
  /** May write anywhere: slp cannot tell what. */
  | { kind: "opaque"; via: string; why: string }
  /** Only a human does this, whatever it touches. */
  | { kind: "human"; rule: "G12" | "G13"; via: string; why: string };

/** Nested `sh -c` / `eval` / substitutions deeper than this are not followed: the command is refused. */
const MAX_DEPTH = 8;

/** Programs that write nothing but their redirections. */
const READ_ONLY = new Set(
  (
    "cat less more head tail grep egrep fgrep rg ag ack ls tree wc diff cmp comm stat file echo printf test [ [[ pwd which type whoami id date " +
    "true false : cut tr column nl od hexdump basename dirname realpath readlink du df printenv sleep wait seq expr md5sum sha1sum sha256sum " +
    "shasum jq hash help history jobs fg bg kill ps uname hostname locale tput clear cal bc dc fold fmt paste join rev tac strings"
  ).split(" "),
);

/** Words that open a compound command or a pipeline: the program is the next word. */
const KEYWORDS = new Set(["!", "{", "}", "then", "do", "else", "elif", "if", "while", "until", "time", "fi", "done", "esac", "in"]);

/** Programs that run the command after their own options; the number is how many bare words they take first (timeout's duration). */
const WRAPPERS: Record<string, { valued: string; bare: number }> = {
  sudo: { valued: "ugCDhprtUTc", bare: 0 },
  doas: { valued: "uC", bare: 0 },
  nohup: { valued: "", bare: 0 },
  nice: { valued: "n", bare: 0 },
  ionice: { valued: "cnp", bare: 0 },
  timeout: { valued: "sk", bare: 1 },
  command: { valued: "", bare: 0 },
  builtin: { valued: "", bare: 0 },
  exec: { valued: "a", bare: 0 },
  stdbuf: { valued: "ioe", bare: 0 },
  setsid: { valued: "", bare: 0 },
  chronic: { valued: "", bare: 0 },
  unbuffer: { valued: "", bare: 0 },
  "xvfb-run": { valued: "nsef", bare: 0 },
  caffeinate: { valued: "tw", bare: 0 },
  npx: { valued: "p", bare: 0 },
  bunx: { valued: "p", bare: 0 },
  pnpx: { valued: "p", bare: 0 },
  watch: { valued: "nd", bare: 0 },
};

const SHELLS = new Set(["sh", "bash", "zsh", "dash", "ksh", "mksh", "fish", "ash", "busybox"]);

/** Interpreters and the flags that give them their program inline. */
const INTERPRETERS: Record<string, { inline: string[]; cluster?: string }> = {
  python: { inline: ["-c"] },
  node: { inline: ["-e", "--eval", "-p", "--print"] },
  nodejs: { inline: ["-e", "--eval", "-p", "--print"] },
  bun: { inline: ["-e", "--eval", "-p", "--print"] },
  deno: { inline: ["eval"] },
  perl: { inline: ["-e", "-E"], cluster: "eE" },
  ruby: { inline: ["-e"], cluster: "e" },
  php: { inline: ["-r"] },
  lua: { inline: ["-e"] },
  luajit: { inline: ["-e"] },
  Rscript: { inline: ["-e"] },
  osascript: { inline: ["-e"] },
  pwsh: { inline: ["-c", "-command", "-Command", "-encodedcommand", "-EncodedCommand"] },
  powershell: { inline: ["-c", "-command", "-Command", "-encodedcommand", "-EncodedCommand"] },
  tclsh: { inline: [] },
  jshell: { inline: [] },
  groovy: { inline: ["-e"] },
  julia: { inline: ["-e", "--eval"] },
};

/** Names in a script that can write a file, run a program, or build a name slp cannot read. */
const SCRIPT_CAPABILITY =
  /\b(open|\w{1,40}open|sysopen|file_\w+|copy|unlink\w*|rename\w*|rmtree|rmdir|mkdir\w*|makedirs|symlink\w*|link|chmod|chown|truncate|system|exec\w*|spawn\w*|fork|passthru|subprocess|eval|compile|__import__|importlib|getattr|setattr|globals|locals|vars|shutil|pathlib|path|pathname|os|io|fs|posix|nt|pty|ctypes|builtins|require|bun|deno|process|child_process|file\w*|dir|tempfile|codecs|zipfile|tarfile|sqlite3|shelve|dbm|pickle|marshal|socket|urllib|http\w*|requests|chr|fromcharcode|atob|b64decode|base64|decode|bytes|function|constructor|reflect|globalthis|module|qx|syscall|mmap|runpy|kernel|send|public_send|instance_eval|class_eval|objectspace|write\w*)\b|`|>|__\w{1,40}__|%x|\bimport\s*\(/i;
/** In awk: a command run, a pipe, a file read or closed. */
const AWK_CAPABILITY = /\bsystem\s*\(|\||\bclose\s*\(|getline\s*</;

/** True when an awk program runs a command or sends output to a file: a `>` after print in one statement. */
function awkWrites(code: string): boolean {
  if (AWK_CAPABILITY.test(code)) return true;
  return code.split(/[;}\n]/).some((statement) => {
    const print = statement.search(/\bprintf?\b/);
    return print >= 0 && statement.indexOf(">", print) >= 0;
  });
}

interface State {
  cwd: string | null;
  variables: Map<string, string>;
}

/** Every effect a command line, run from `cwd`, may have on the files. */
export function commandEffects(line: string, cwd: string): Effect[] {
  const effects: Effect[] = [];
  analyzeLine(line, { cwd, variables: new Map() }, effects, 0);
  return effects;
}

function analyzeLine(line: string, state: State, out: Effect[], depth: number): void {
  if (depth > MAX_DEPTH) {
    out.push({ kind: "opaque", via: line, why: `commands nested more than ${MAX_DEPTH} deep` });
    return;
  }
  const parsed = parseLine(line);
  const stack: (string | null)[] = [];
  for (const item of parsed.items) {
    if (item.kind === "open") stack.push(state.cwd);
    else if (item.kind === "close") state.cwd = stack.length > 0 ? (stack.pop() as string | null) : state.cwd;
    else analyzeCommand(item.command, state, out, depth);
  }
  // What runs inside $(...), backticks and <(...) runs from the line's folder too.
  for (const inner of parsed.nested) analyzeLine(inner, { cwd: state.cwd, variables: new Map(state.variables) }, out, depth + 1);
}

/** The text of a command as written, for messages. */
function textOf(words: readonly Word[]): string {
  return words.map((word) => word.source).join(" ");
}

interface Run {
  state: State;
  out: Effect[];
  depth: number;
  via: string;
  /** What the program reads on stdin: a here-document's text, "pipe" when piped, null otherwise. */
  stdin: string | "pipe" | null;
  /** The variables set for this command alone (`SLP=x ./tcr.sh`). */
  environment: Set<string>;
  /** The value of `w` with assigned variables put in; null when it is decided only at run time. */
  value(w: Word): string | null;
  /** Judged as a path the program writes. */
  write(w: Word, options?: { git?: boolean; cwd?: string | null }): void;
  opaque(why: string): void;
  tree(dir: string, why: string, cwd?: string | null): void;
  human(rule: "G12" | "G13", why: string): void;
}

function analyzeCommand(command: SimpleCommand, state: State, out: Effect[], depth: number): void {
  const via = [textOf(command.words), ...command.redirects.map((r) => `${r.op} ${r.target?.source ?? ""}`.trim())]
    .filter(Boolean)
    .join(" ");
  let stdin: string | "pipe" | null = command.piped ? "pipe" : null;
  const run: Run = {
    state,
    out,
    depth,
    via,
    stdin,
    environment: new Set(),
    value: (w) => substitute(w, state.variables),
    write: (w, options = {}) => writeWord(run, w, options.git ?? false, options.cwd === undefined ? state.cwd : options.cwd),
    opaque: (why) => out.push({ kind: "opaque", via, why }),
    tree: (dir, why, cwd = state.cwd) => out.push({ kind: "tree", cwd, dir, via, why }),
    human: (rule, why) => out.push({ kind: "human", rule, via, why }),
  };
  for (const redirect of command.redirects) {
    if (redirect.body !== undefined) stdin = redirect.body;
    if (redirect.target === null || !/>|<>/.test(redirect.op)) continue;
    // `2>&1` and `>&-` duplicate a descriptor; `>& file` and `&> file` write the file.
    if (/&$/.test(redirect.op) && /^(\d+|-)$/.test(literalOf(redirect.target) ?? "")) continue;
    run.write(redirect.target);
  }
  run.stdin = stdin;
  let words = command.words;
  // Assignments before the program are its environment; alone, they set the line's variables.
  let k = 0;
  const assigned: [string, Word][] = [];
  while (k < words.length && assignmentOf(words[k] as Word)) {
    assigned.push(assignmentOf(words[k] as Word) as [string, Word]);
    k++;
  }
  checkGitEnvironment(run, assigned);
  for (const [name] of assigned) run.environment.add(name);
  if (k === words.length) {
    for (const [name, value] of assigned) assign(state, name, value);
    return;
  }
  words = words.slice(k);
  runProgram(run, words);
}

function assignmentOf(word: Word): [string, Word] | null {
  const first = word.parts[0];
  if (first?.kind !== "text" || first.quoted) return null;
  const match = /^([A-Za-z_][A-Za-z0-9_]*)\+?=/.exec(first.text);
  if (!match) return null;
  return [match[1] as string, parseWord(word.source.slice(word.source.indexOf("=") + 1), [])];
}

function assign(state: State, name: string, value: Word): void {
  const text = substitute(value, state.variables);
  if (text === null) state.variables.delete(name);
  else state.variables.set(name, text);
}

function writeWord(run: Run, word: Word, git: boolean, cwd: string | null): void {
  const dynamic = dynamicPart(word, run.state.variables);
  if (dynamic !== null) {
    run.opaque(`${dynamic} is decided only when the command runs`);
    return;
  }
  const glob = globOf(word, run.state.variables);
  const text = substitute(word, run.state.variables) as string;
  if (git && /[*?[]/.test(text)) run.out.push({ kind: "glob", cwd, pattern: text, git: true, via: run.via });
  else if (glob !== null) run.out.push({ kind: "glob", cwd, pattern: glob, git: false, via: run.via });
  else if (git && text.startsWith(":")) {
    if (/^:(\/|\(top\))/.test(text)) run.tree(".", `the pathspec ${text} names the whole work tree`, cwd);
    else run.opaque(`the pathspec ${text} uses git's pathspec magic`);
  } else run.out.push({ kind: "path", cwd, path: text, via: run.via });
}

/** A word spelled as an option (`-f`, `--force`); `-` alone is stdin. */
function isOption(run: Run, word: Word): boolean {
  const text = run.value(word);
  return text?.startsWith("-") === true && text !== "-";
}

/** The words after the options (and after `--`), taking the values of the options in `valued` (short letters, long names). */
function operands(run: Run, words: readonly Word[], valued = ""): Word[] {
  const result: Word[] = [];
  let optionsDone = false;
  for (let i = 0; i < words.length; i++) {
    const word = words[i] as Word;
    const text = run.value(word);
    if (optionsDone || text === null || !text.startsWith("-") || text === "-") {
      result.push(word);
      continue;
    }
    if (text === "--") {
      optionsDone = true;
      continue;
    }
    if (/^-[A-Za-z]+$/.test(text) && valued !== "" && valued.includes(text[text.length - 1] as string)) i++;
  }
  return result;
}

/** The value of an option (`-t DIR`, `-tDIR`, `--target-directory=DIR`, `--target-directory DIR`). */
function optionValues(run: Run, words: readonly Word[], short: string | null, long: string | null): Word[] {
  const values: Word[] = [];
  for (let i = 0; i < words.length; i++) {
    const text = run.value(words[i] as Word);
    if (text === null) continue;
    if (text === "--") break;
    if ((short && text === short) || (long && text === long)) {
      if (words[i + 1]) values.push(words[i + 1] as Word);
      i++;
    } else if (long && text.startsWith(`${long}=`)) values.push(parseWord(quote(text.slice(long.length + 1)), []));
    else if (short && text.startsWith(short) && !text.startsWith("--") && text.length > short.length) {
      values.push(parseWord(quote(text.slice(short.length)), []));
    }
  }
  return values;
}

function quote(text: string): string {
  return `'${text.replace(/'/g, "'\\''")}'`;
}

function runProgram(run: Run, words: readonly Word[]): void {
  const [programWord, ...args] = words;
  if (!programWord) return;
  const program = run.value(programWord);
  if (program === null) {
    run.opaque(`the program ${programWord.source} is decided only when the command runs`);
    return;
  }
  const name = posix.basename(program);
  // slp's tcr reached any way (bun src/cli.ts tcr, npm run slp -- tcr, node bin/slp.cjs tcr): --reset is the human's.
  const texts = words.map((word) => run.value(word) ?? "");
  if (texts.includes("tcr") && name !== "slp" && texts.some((text) => isSlpOption(text, "--reset", 3))) {
    run.human("G13", "slp tcr --reset clears the strike count after a human has looked");
  }
  if (KEYWORDS.has(program)) {
    runProgram(run, args);
    return;
  }
  if (program === "for" || program === "select" || program === "case") {
    const variable = args[0] ? run.value(args[0]) : null;
    if (variable !== null) run.state.variables.delete(variable);
    return;
  }
  if (program === "function" || /^[A-Za-z_][\w-]*\(\)$/.test(program)) return;
  if (READ_ONLY.has(name)) return;
  const handler = HANDLERS[name] ?? (/^python[\d.]*$/.test(name) ? HANDLERS.python : undefined);
  if (handler) {
    handler(run, args, name);
    return;
  }
  if (WRAPPERS[name]) {
    wrapper(run, args, WRAPPERS[name]);
    return;
  }
  if (INTERPRETERS[name]) {
    interpreter(run, args, name);
    return;
  }
  writeAll(run, args);
}

/** An unknown program: every word may name a file it writes (`--output=FILE` included). */
function writeAll(run: Run, args: readonly Word[]): void {
  for (const word of args) {
    const text = run.value(word);
    if (text?.startsWith("-")) {
      const eq = text.indexOf("=");
      if (eq > 0) run.out.push({ kind: "path", cwd: run.state.cwd, path: text.slice(eq + 1), via: run.via });
      continue;
    }
    run.write(word);
  }
}

function wrapper(run: Run, args: readonly Word[], spec: { valued: string; bare: number }): void {
  let i = 0;
  while (i < args.length && isOption(run, args[i] as Word)) {
    const text = run.value(args[i] as Word) as string;
    i++;
    if (text === "--") break;
    if (/^-[A-Za-z]$/.test(text) && spec.valued.includes(text[1] as string)) i++;
  }
  i += spec.bare;
  runProgram(run, args.slice(i));
}

type Handler = (run: Run, args: readonly Word[], name: string) => void;

const HANDLERS: Record<string, Handler> = {
  cd: (run, args) => changeDirectory(run, args),
  pushd: (run, args) => changeDirectory(run, args),
  popd: (run) => {
    run.state.cwd = null;
  },
  export: (run, args) => declare(run, args),
  declare: (run, args) => declare(run, args),
  typeset: (run, args) => declare(run, args),
  local: (run, args) => declare(run, args),
  readonly: (run, args) => declare(run, args),
  unset: (run, args) => {
    for (const word of args) run.state.variables.delete(run.value(word) ?? "");
  },
  read: (run, args) => {
    for (const word of operands(run, args, "adnptu")) run.state.variables.delete(run.value(word) ?? "");
  },
  source: () => {},
  ".": () => {},
  eval: (run, args) => shellString(run, args, "eval"),
  trap: (run, args) => {
    if (args[0]) shellString(run, [args[0]], "trap");
  },
  env: (run, args) => {
    let i = 0;
    for (; i < args.length; i++) {
      const word = args[i] as Word;
      const text = run.value(word);
      if (text === null) break;
      if (text === "-S" || text === "--split-string") {
        shellString(run, args.slice(i + 1), "env -S");
        return;
      }
      if (text === "-C" || text === "--chdir") {
        changeDirectory(run, args.slice(i + 1, i + 2));
        i++;
      } else if (text === "-u" || text === "--unset") i++;
      else if (assignmentOf(word)) {
        checkGitEnvironment(run, [assignmentOf(word) as [string, Word]]);
        run.environment.add((assignmentOf(word) as [string, Word])[0]);
      } else if (!text.startsWith("-")) break;
    }
    runProgram(run, args.slice(i));
  },
  xargs: (run, args) => xargs(run, args),
  parallel: (run, args) => xargs(run, args),
  find: (run, args) => find(run, args),
  sed: (run, args) => sed(run, args),
  awk: (run, args) => awk(run, args),
  gawk: (run, args) => awk(run, args),
  mawk: (run, args) => awk(run, args),
  nawk: (run, args) => awk(run, args),
  cp: (run, args) => copy(run, args),
  install: (run, args) => copy(run, args),
  rsync: (run, args) => {
    const files = operands(run, args, "efB");
    const last = files[files.length - 1];
    if (last) run.write(last);
  },
  ln: (run, args) => link(run, args),
  tar: (run, args) => tar(run, args),
  bsdtar: (run, args) => tar(run, args),
  gtar: (run, args) => tar(run, args),
  unzip: (run, args) => {
    const files = operands(run, args, "dxP");
    if (args.some((word) => /^-[A-Za-z]*[ltvZpc]/.test(run.value(word) ?? ""))) return;
    if (files.length === 0) return;
    const dir = optionValues(run, args, "-d", null)[0];
    extractInto(run, dir, "unzip extracts the files the archive names");
  },
  "7z": (run, args) => sevenZip(run, args),
  "7za": (run, args) => sevenZip(run, args),
  "7zr": (run, args) => sevenZip(run, args),
  cpio: (run, args) => {
    const texts = args.map((word) => run.value(word) ?? "");
    if (texts.some((text) => /^-[A-Za-z]*i|^--extract$/.test(text))) {
      extractInto(run, optionValues(run, args, "-D", "--directory")[0], "cpio extracts the files the archive names");
    } else if (texts.some((text) => /^-[A-Za-z]*p|^--pass-through$/.test(text))) {
      const files = operands(run, args, "DEFHIMOR");
      if (files[0]) extractInto(run, files[files.length - 1], "cpio copies the files named on its input");
    }
  },
  patch: (run, args) => {
    for (const word of optionValues(run, args, "-o", "--output")) run.write(word);
    const files = operands(run, args, "pdiDoFrBVYzg");
    if (files[0]) run.write(files[0]);
    else extractInto(run, optionValues(run, args, "-d", "--directory")[0], "patch writes the files the patch names");
  },
  dd: (run, args) => {
    for (const word of args) {
      const text = run.value(word);
      if (text?.startsWith("of=")) run.write(parseWord(quote(text.slice(3)), []));
      else if (text === null && word.source.startsWith("of=")) run.opaque(`${word.source} is decided only when the command runs`);
    }
  },
  sort: (run, args) => {
    for (const word of optionValues(run, args, "-o", "--output")) run.write(word);
  },
  uniq: (run, args) => {
    const files = operands(run, args, "fsw");
    if (files[1]) run.write(files[1]);
  },
  curl: (run, args) => download(run, args, ["-o", "--output"], ["-O", "--remote-name"], "oPdHuXeAbcEKrTwyYz"),
  wget: (run, args) => download(run, args, ["-O", "--output-document"], null, "OPdeaoiUTtwQ"),
  yq: (run, args) => {
    if (!args.some((word) => /^-[A-Za-z]*i|^--inplace$/.test(run.value(word) ?? ""))) return;
    for (const word of operands(run, args).slice(1)) run.write(word);
  },
  git: (run, args) => git(run, args),
  slp: (run, args) => slp(run, args),
  "slp.exe": (run, args) => slp(run, args),
  "tcr.sh": (run, args) => tcrScript(run, args),
  npm: (run, args) => packageRunner(run, args),
  pnpm: (run, args) => packageRunner(run, args),
  yarn: (run, args) => packageRunner(run, args),
  python: (run, args, name) => interpreter(run, args, name),
  perl: (run, args, name) => inPlaceInterpreter(run, args, name),
  ruby: (run, args, name) => inPlaceInterpreter(run, args, name),
  bun: (run, args, name) => {
    const sub = args[0] ? run.value(args[0]) : null;
    if (sub === "test") return;
    if (sub === "x") {
      runProgram(run, args.slice(1));
      return;
    }
    interpreter(run, args, name);
  },
};
for (const shell of SHELLS) HANDLERS[shell] = (run, args, name) => shellProgram(run, args, name);

function changeDirectory(run: Run, args: readonly Word[]): void {
  const target = args.find((word) => !isOption(run, word));
  const text = target ? run.value(target) : null;
  if (!target || text === null || text === "-" || run.state.cwd === null) {
    run.state.cwd = text?.startsWith("/") ? posix.normalize(text) : null;
    return;
  }
  run.state.cwd = posix.resolve(run.state.cwd, text);
}

function declare(run: Run, args: readonly Word[]): void {
  for (const word of args) {
    const assignment = assignmentOf(word);
    if (assignment) {
      checkGitEnvironment(run, [assignment]);
      assign(run.state, assignment[0], assignment[1]);
    }
  }
}

/** A string run as a shell command line (`sh -c`, `eval`, `env -S`): read like the line itself. */
function shellString(run: Run, words: readonly Word[], how: string): void {
  const texts = words.map((word) => run.value(word));
  if (texts.some((text) => text === null)) {
    run.opaque(`${how} runs a command line decided only when it runs`);
    return;
  }
  analyzeLine(texts.join(" "), { cwd: run.state.cwd, variables: new Map(run.state.variables) }, run.out, run.depth + 1);
}

function shellProgram(run: Run, args: readonly Word[], name: string): void {
  let i = 0;
  if (name === "busybox" && args[0] && SHELLS.has(run.value(args[0]) ?? "")) i = 1;
  for (; i < args.length; i++) {
    const text = run.value(args[i] as Word);
    if (text === null) {
      run.opaque(`${name} runs ${(args[i] as Word).source}, decided only when it runs`);
      return;
    }
    if (text === "--") {
      i++;
      break;
    }
    if (!text.startsWith("-") && !text.startsWith("+")) break;
    if (/^-[A-Za-z]*c[A-Za-z]*$/.test(text)) {
      shellString(run, args.slice(i + 1, i + 2), `${name} -c`);
      return;
    }
    if (text === "-o" || text === "+o") i++;
  }
  const script = args[i];
  if (!script || run.value(script) === "-" || /^-[A-Za-z]*s/.test(args.map((word) => run.value(word) ?? "").join(" "))) {
    readsProgramFromStdin(run, name, "shell");
    return;
  }
  // Running a script file runs what it says (tcr.sh is the agent's way to commit); its words may be paths it writes.
  if (posix.basename(run.value(script) ?? "") === "tcr.sh") {
    tcrScript(run, args.slice(i + 1));
    return;
  }
  writeAll(run, args.slice(i + 1));
}

/** A program reading its code on stdin: a here-document is read like an inline script; a pipe cannot be. */
function readsProgramFromStdin(run: Run, name: string, language: "shell" | "script"): void {
  if (run.stdin === "pipe") {
    run.opaque(`${name} runs a program it reads from a pipe`);
    return;
  }
  if (run.stdin === null) return;
  if (language === "shell") analyzeLine(run.stdin, { cwd: run.state.cwd, variables: new Map(run.state.variables) }, run.out, run.depth + 1);
  else inlineScript(run, `${name} <<`, run.stdin, SCRIPT_CAPABILITY);
}

function interpreter(run: Run, args: readonly Word[], name: string): void {
  const spec: { inline: string[]; cluster?: string } = INTERPRETERS[name] ?? (INTERPRETERS.python as { inline: string[] });
  for (let i = 0; i < args.length; i++) {
    const text = run.value(args[i] as Word);
    if (text === null) {
      run.opaque(`${name} runs ${(args[i] as Word).source}, decided only when it runs`);
      return;
    }
    const clustered = spec.cluster && /^-[A-Za-z]+$/.test(text) && [...spec.cluster].some((flag) => text.endsWith(flag));
    if (spec.inline.includes(text) || clustered) {
      const code = args[i + 1] ? run.value(args[i + 1] as Word) : "";
      if (code === null) {
        run.opaque(`${name} ${text} runs code decided only when it runs`);
        return;
      }
      inlineScript(run, `${name} ${text}`, code, SCRIPT_CAPABILITY);
      writeAll(run, args.slice(i + 2));
      return;
    }
    if (spec.inline.some((flag) => flag.startsWith("--") && text.startsWith(`${flag}=`))) {
      inlineScript(run, `${name} ${text.slice(0, text.indexOf("="))}`, text.slice(text.indexOf("=") + 1), SCRIPT_CAPABILITY);
      writeAll(run, args.slice(i + 1));
      return;
    }
    if (text === "-") {
      readsProgramFromStdin(run, name, "script");
      return;
    }
    if (text.startsWith("-")) {
      // python -m module: the module is code slp does not read, as a script file is.
      if (text === "-m") {
        writeAll(run, args.slice(i + 2));
        return;
      }
      continue;
    }
    // A script file: run as written; its other words may be paths it writes.
    writeAll(run, args.slice(i + 1));
    return;
  }
  readsProgramFromStdin(run, name, "script");
}

/** perl -pi -e / ruby -i: edits the files it is given in place. */
function inPlaceInterpreter(run: Run, args: readonly Word[], name: string): void {
  if (args.some((word) => /^-[A-Za-z]*i/.test(run.value(word) ?? ""))) {
    const files = operands(run, args, "eEI");
    const script = args.findIndex((word) => /^-[A-Za-z]*[eE]$/.test(run.value(word) ?? ""));
    for (const word of files) if (script < 0 || word !== args[script + 1]) run.write(word);
  }
  interpreter(run, args, name);
}

/** An inline program: refused when it can write files or run programs; any protected path it names is judged too. */
function inlineScript(run: Run, how: string, code: string, capability: RegExp): void {
  const found = capability.exec(code);
  if (found) run.opaque(`${how} runs a script that can write files or run programs (${found[0].trim()}), which slp cannot follow`);
  // Operators and numbers (`1 / 2`, `..`) are no paths; a word that is one is judged.
  const pieces = code.split(/[\s'"`=<>|;&(),{}[\]+]+/).filter((piece) => !/^[-./\d]*$/.test(piece) && !piece.startsWith("-"));
  for (const piece of pieces.slice(0, 2000)) run.out.push({ kind: "path", cwd: run.state.cwd, path: piece, via: run.via });
}

function xargs(run: Run, args: readonly Word[]): void {
  let i = 0;
  for (; i < args.length; i++) {
    const text = run.value(args[i] as Word);
    if (text === null || !text.startsWith("-")) break;
    if (text === "--") {
      i++;
      break;
    }
    if (/^-[IinLlPdEesa]$/.test(text) || /^--(arg-file|delimiter|max-args|max-lines|max-procs|replace|eof|max-chars)$/.test(text)) i++;
  }
  const inner = args.slice(i);
  if (inner.length === 0) return;
  // The words xargs adds come from its input: decided only when it runs.
  runProgram(run, [...inner, parseWord("$XARGS_INPUT", [])]);
}

function find(run: Run, args: readonly Word[]): void {
  const starts: Word[] = [];
  let i = 0;
  for (; i < args.length; i++) {
    const text = run.value(args[i] as Word);
    if (text !== null && (text.startsWith("-") || text === "(" || text === "!")) break;
    starts.push(args[i] as Word);
  }
  if (starts.length === 0) starts.push(parseWord(".", []));
  const rest = args.slice(i).map((word) => run.value(word));
  let writes = false;
  for (let k = 0; k < rest.length; k++) {
    const text = rest[k];
    if (text === "-delete") writes = true;
    if (text && /^-(fprint0?|fprintf|fls)$/.test(text) && args[i + k + 1]) run.write(args[i + k + 1] as Word);
    if (text && /^-(exec|execdir|ok|okdir)$/.test(text)) {
      let end = k + 1;
      while (end < rest.length && rest[end] !== ";" && rest[end] !== "+") end++;
      const inner = args.slice(i + k + 1, i + end);
      const program = inner[0] ? run.value(inner[0]) : null;
      if (program === null || !READ_ONLY.has(posix.basename(program))) writes = true;
      const effects: Effect[] = [];
      runProgram({ ...run, out: effects }, inner);
      run.out.push(...effects.filter((effect) => effect.kind !== "path" || effect.path !== "{}"));
      k = end;
    }
  }
  if (!writes) return;
  for (const start of starts) {
    const text = run.value(start);
    if (text === null) run.opaque(`find starts from ${start.source}, decided only when it runs`);
    else if (globOf(start, run.state.variables) !== null) run.write(start);
    else run.tree(text, "find changes the files it finds there");
  }
}

function sed(run: Run, args: readonly Word[]): void {
  const texts = args.map((word) => run.value(word));
  const inPlace = texts.some((text) => text !== null && (/^-[A-Za-z]*i/.test(text) || text.startsWith("--in-place")));
  const scripts = optionValues(run, args, "-e", "--expression");
  const files = operands(run, args, "efl");
  if (scripts.length === 0 && files.length > 0 && !texts.some((text) => text === "-f" || text?.startsWith("--file"))) {
    scripts.push(files.shift() as Word);
  }
  for (const script of scripts) {
    const code = run.value(script);
    if (code === null) run.opaque(`the sed script ${script.source} is decided only when it runs`);
    else {
      for (const match of code.matchAll(/(?:^|[;}\n]|\/[gpIiMm0-9]*)\s*[wW]\s+([^;\n]+)/g)) {
        run.out.push({ kind: "path", cwd: run.state.cwd, path: (match[1] as string).trim(), via: run.via });
      }
      if (/(?:^|[;}\n])\s*e(\s|;|$)|\/[gpIiMmw0-9]*e[gpIiMm0-9]*(\s|;|$)/.test(code)) run.opaque("sed's e command runs a program");
    }
  }
  if (inPlace) for (const file of files) run.write(file);
}

function awk(run: Run, args: readonly Word[]): void {
  const texts = args.map((word) => run.value(word));
  const files = operands(run, args, "fvFiW");
  const fromFile = texts.some((text) => text === "-f" || text?.startsWith("--file"));
  const script = fromFile ? undefined : files.shift();
  if (script) {
    const code = run.value(script);
    if (code === null) run.opaque(`the awk program ${script.source} is decided only when it runs`);
    else if (awkWrites(code)) run.opaque("the awk program writes to a file or runs a command, which slp cannot follow");
  }
  const inPlace = texts.some((text, i) => text === "inplace" && (texts[i - 1] === "-i" || texts[i - 1] === "--include"));
  if (inPlace) for (const file of files) run.write(file);
}

function copy(run: Run, args: readonly Word[]): void {
  const targets = optionValues(run, args, "-t", "--target-directory");
  const files = operands(run, args, "tSmogZ");
  const links = args.some((word) => /^-[A-Za-z]*[ls]|^--(link|symbolic-link)$/.test(run.value(word) ?? ""));
  if (links) {
    for (const word of files) run.write(word);
  } else if (targets.length === 0 && files.length > 0) run.write(files[files.length - 1] as Word);
  for (const target of targets) run.write(target);
}

/** ln: the link written, and what it points to (read from the link's folder, as the kernel will). */
function link(run: Run, args: readonly Word[]): void {
  const targets = optionValues(run, args, "-t", "--target-directory");
  const files = operands(run, args, "tS");
  for (const word of [...files, ...targets]) run.write(word);
  const destination = targets[0] ?? (files.length > 1 ? files[files.length - 1] : undefined);
  const place = destination ? run.value(destination) : null;
  if (place === null || run.state.cwd === null) return;
  const linkDir = posix.resolve(run.state.cwd, place);
  for (const source of files.slice(0, destination === targets[0] ? files.length : -1)) {
    // Relative to the link's folder, whether the destination is that folder or the link itself.
    run.write(source, { cwd: linkDir });
    run.write(source, { cwd: posix.dirname(linkDir) });
  }
}

function extractInto(run: Run, dir: Word | undefined, why: string): void {
  if (!dir) {
    run.tree(".", why);
    return;
  }
  const text = run.value(dir);
  if (text === null) {
    run.opaque(`${why}, into ${dir.source}, decided only when it runs`);
    return;
  }
  run.tree(text, why);
}

/** tar: what it creates (the archive) or where it extracts; options that run programs or write outside are refused. */
function tar(run: Run, args: readonly Word[]): void {
  let mode = "";
  const archive: Word[] = [];
  const dirs: Word[] = [];
  const danger: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const word = args[i] as Word;
    const text = run.value(word);
    if (text === null) continue;
    const bundle = i === 0 && /^[A-Za-z]+$/.test(text) ? text : /^-[A-Za-z]+$/.test(text) ? text.slice(1) : null;
    if (bundle !== null) {
      let next = i + 1;
      for (const letter of bundle) {
        if ("cruxtdA".includes(letter)) mode ||= letter;
        if (letter === "P" || letter === "F" || letter === "I") danger.push(`-${letter}`);
        if ("fCTXbgKNVLIF".includes(letter) && args[next]) {
          if (letter === "f") archive.push(args[next] as Word);
          if (letter === "C") dirs.push(args[next] as Word);
          next++;
        }
      }
      i = next - 1;
      continue;
    }
    const long = /^--([a-z-]+)(?:=(.*))?$/.exec(text);
    if (!long) continue;
    const [option, value] = [long[1] as string, long[2]];
    const valueWord = value !== undefined ? parseWord(quote(value), []) : (args[i + 1] as Word | undefined);
    if (/^(create|append|update|extract|get|list|diff|compare|concatenate|catenate|delete)$/.test(option)) {
      mode ||= { create: "c", append: "r", update: "u", extract: "x", get: "x", list: "t", diff: "d", compare: "d" }[option] ?? "c";
    } else if (option === "file" && valueWord) archive.push(valueWord);
    else if (option === "directory" && valueWord) dirs.push(valueWord);
    else if (
      /^(to-command|checkpoint-action|info-script|new-volume-script|use-compress-program|rmt-command|rsh-command|absolute-names)$/.test(
        option,
      )
    ) {
      danger.push(`--${option}`);
    }
    if (
      value === undefined &&
      /^(file|directory|to-command|checkpoint-action|info-script|new-volume-script|use-compress-program)$/.test(option)
    )
      i++;
  }
  if (danger.length > 0) run.opaque(`tar ${danger.join(" ")} runs a program or writes outside its folder`);
  if ("crudA".includes(mode) && mode !== "d") for (const word of archive) if (run.value(word) !== "-") run.write(word);
  if (mode === "x") extractInto(run, dirs[dirs.length - 1], "tar extracts the files the archive names");
}

function sevenZip(run: Run, args: readonly Word[]): void {
  const command = args[0] ? run.value(args[0]) : null;
  const files = operands(run, args.slice(1));
  if (command === "x" || command === "e") {
    const out = args.map((word) => run.value(word)).find((text) => text?.startsWith("-o"));
    extractInto(run, out ? parseWord(quote(out.slice(2)), []) : undefined, "7z extracts the files the archive names");
  } else if (command === "a" || command === "u" || command === "d" || command === "rn") {
    if (files[0]) run.write(files[0]);
  }
}

/** curl -o/-O, wget: the file named, or the last segment of the URL (curl only with -O). */
function download(run: Run, args: readonly Word[], output: [string, string], remote: [string, string] | null, valued: string): void {
  const outputs = optionValues(run, args, ...output);
  for (const word of outputs) if (run.value(word) !== "-") run.write(word);
  const named = remote === null || args.some((word) => remote.includes(run.value(word) ?? ""));
  if (!named || outputs.length > 0) return;
  for (const word of operands(run, args, valued)) {
    const url = run.value(word);
    if (url === null) run.opaque(`the file ${word.source} is named only when the command runs`);
    else if (/^[a-z]+:\/\//i.test(url)) {
      const name =
        url
          .replace(/[?#].*$/, "")
          .replace(/\/+$/, "")
          .split("/")
          .pop() ?? "";
      run.out.push({ kind: "path", cwd: run.state.cwd, path: name || "index.html", via: run.via });
    }
  }
}

/** npm exec / pnpm dlx / yarn: the program they run is the next word. */
function packageRunner(run: Run, args: readonly Word[]): void {
  const sub = args[0] ? run.value(args[0]) : null;
  if (sub === "exec" || sub === "dlx" || sub === "x") {
    const rest = args.slice(1);
    const dash = rest.findIndex((word) => run.value(word) === "--");
    runProgram(run, dash >= 0 ? rest.slice(dash + 1) : rest.filter((word) => !isOption(run, word)));
    return;
  }
  if (sub === "slp") {
    slp(run, args.slice(1));
    return;
  }
  writeAll(run, args);
}

/** A long option as slp's argument parser reads it: any unambiguous prefix, `--reset=REASON` included. */
function isSlpOption(text: string, option: string, shortest: number): boolean {
  const name = text.split("=")[0] as string;
  return name.length >= shortest && option.startsWith(name);
}

function slp(run: Run, args: readonly Word[]): void {
  const texts = args.map((word) => run.value(word));
  const task = texts.find((text) => text !== null && !text.startsWith("-"));
  if (texts.some((text) => text !== null && isSlpOption(text, "--reset", 3))) {
    run.human("G13", "slp tcr --reset clears the strike count after a human has looked");
  }
  if (task === "init") run.tree(".", "slp init writes CODEOWNERS, AGENTS.md, tcr.sh, slp.yml and the agents' hook settings");
  for (let i = 0; i < texts.length; i++) {
    const text = texts[i];
    if (text === null || text === undefined) continue;
    if (["--output", "--html", "--junit"].some((option) => isSlpOption(text, option, 4) && text.startsWith(option.slice(0, 4)))) {
      const eq = text.indexOf("=");
      if (eq > 0) run.out.push({ kind: "path", cwd: run.state.cwd, path: text.slice(eq + 1), via: run.via });
      else if (args[i + 1]) run.write(args[++i] as Word);
    }
  }
}

/** ./tcr.sh "message" [slp tcr flags]: the agent's way to commit, except with --reset or with $SLP pointing it at another slp. */
function tcrScript(run: Run, args: readonly Word[]): void {
  if (run.environment.has("SLP") || run.state.variables.has("SLP"))
    run.human("G12", "SLP=... makes tcr.sh run another slp than the project's");
  if (args.some((word) => isSlpOption(run.value(word) ?? "", "--reset", 3))) {
    run.human("G13", "tcr.sh --reset clears the strike count after a human has looked");
  }
}

/** Environment that turns git's hooks off or points git elsewhere (GIT_CONFIG_KEY_0=core.hooksPath, GIT_WORK_TREE). */
function checkGitEnvironment(run: Run, assigned: readonly [string, Word][]): void {
  for (const [name, value] of assigned) {
    const text = run.value(value) ?? value.source;
    if (/^GIT_CONFIG_(KEY_\d+|PARAMETERS)$/.test(name) && /hookspath|^include/i.test(text)) {
      run.human("G12", `${name}=${text} switches git's hooks, which are the human's`);
    }
    if (/^GIT_(WORK_TREE|DIR|INDEX_FILE|CONFIG_GLOBAL|CONFIG_SYSTEM)$/.test(name)) {
      run.opaque(`${name} points git at another work tree or settings`);
    }
  }
}

/** git subcommands that change no file in the work tree (or only the index, or refs). */
const GIT_HARMLESS = new Set(
  (
    "status diff log show blame ls-files ls-tree grep rev-parse rev-list cat-file branch remote fetch describe shortlog reflog merge-base " +
    "name-rev for-each-ref show-ref show-branch whatchanged count-objects fsck verify-commit verify-tag help version var add commit merge " +
    "push tag gc prune notes switch range-diff cherry format-patch archive bundle init clone maintenance fetch-pack ls-remote request-pull " +
    "check-ignore check-attr check-ref-format annotate mv-check hash-object write-tree commit-tree"
  ).split(" "),
);
/** git subcommands that rewrite the work tree with files slp cannot name before they run. */
const GIT_TREE_REWRITERS: Record<string, string> = {
  am: "git am applies patches to the files they name",
  apply: "git apply writes the files the patch names",
  rebase: "git rebase rewrites the branch's history and its files (AGENTS.md: never rebase)",
  "cherry-pick": "git cherry-pick brings another commit's changes, whatever files they touch (take the base branch with git merge)",
  revert: "git revert writes the files another commit touched",
  "read-tree": "git read-tree writes the files a tree names",
  "sparse-checkout": "git sparse-checkout removes and restores files",
  "filter-branch": "git filter-branch rewrites history",
  "filter-repo": "git filter-repo rewrites history",
  "checkout-index": "git checkout-index writes files from the index",
  "merge-file": "git merge-file writes a merged file",
  submodule: "git submodule writes the submodules' folders",
  mergetool: "git mergetool runs a merge program",
  difftool: "git difftool runs a diff program",
};

function git(run: Run, args: readonly Word[]): void {
  let i = 0;
  let cwd = run.state.cwd;
  for (; i < args.length; i++) {
    const text = run.value(args[i] as Word);
    if (text === null) {
      run.opaque(`git ${(args[i] as Word).source} is decided only when it runs`);
      return;
    }
    if (!text.startsWith("-")) break;
    const value = args[i + 1] ? run.value(args[i + 1] as Word) : null;
    if (text === "-C") {
      cwd = value === null || cwd === null ? (value?.startsWith("/") ? value : null) : posix.resolve(cwd, value);
      i++;
    } else if (text === "-c" || text === "--config-env") {
      gitConfigKey(run, value ?? "");
      i++;
    } else if (text.startsWith("--config-env=")) gitConfigKey(run, text.slice(13));
    else if (/^--(git-dir|work-tree|namespace|exec-path)/.test(text)) {
      if (!text.includes("=") && text !== "--exec-path") i++;
      if (!text.startsWith("--namespace")) {
        run.opaque(`git ${text} points git at another repository or work tree`);
        return;
      }
    }
  }
  const sub = args[i] ? run.value(args[i] as Word) : null;
  if (sub === null || sub === undefined) return;
  const rest = args.slice(i + 1);
  const texts = rest.map((word) => run.value(word) ?? "");
  const here: Run = { ...run, state: { ...run.state, cwd } };
  if (texts.some((text) => text.length >= 9 && "--no-verify".startsWith(text))) {
    run.human("G12", `git ${sub} --no-verify skips the hooks, which are the human's`);
  }
  if (sub === "commit" && commitSkipsHooks(texts)) {
    run.human("G12", "git commit -n skips the hooks, which are the human's");
  }
  if (sub === "config") {
    gitConfig(here, rest);
    return;
  }
  if (sub === "pull") {
    if (texts.some((text) => text === "-r" || text === "--rebase" || /^--rebase=(true|merges|interactive|i)$/.test(text))) {
      run.tree(".", GIT_TREE_REWRITERS.rebase as string, cwd);
    }
    return;
  }
  if (GIT_HARMLESS.has(sub)) return;
  if (sub === "worktree") {
    if (texts[0] === "add") {
      const target = operands(here, rest.slice(1), "bB")[0];
      if (target) here.write(target);
    }
    return;
  }
  if (sub === "bisect") {
    if (texts[0] === "run") run.opaque("git bisect run runs a command");
    return;
  }
  if (sub === "stash") {
    if (["pop", "apply", "branch"].includes(texts[0] ?? "")) run.tree(".", `git stash ${texts[0]} writes the stashed files back`, cwd);
    return;
  }
  if (sub === "reset") {
    if (texts.some((text) => text === "--hard" || text === "--merge" || text === "--keep")) {
      run.tree(".", "git reset --hard rewrites the work tree to another commit's files", cwd);
    }
    return;
  }
  if (sub === "apply" && !texts.includes("--apply") && texts.some((text) => /^--(check|stat|numstat|summary)$/.test(text))) return;
  const rewriter = GIT_TREE_REWRITERS[sub];
  if (rewriter) {
    if (texts.some((text) => text === "--abort" || text === "--quit")) return;
    run.tree(".", rewriter, cwd);
    return;
  }
  if (sub === "checkout" || sub === "restore") {
    if (
      sub === "restore" &&
      texts.some((text) => text === "--staged" || text === "-S") &&
      !texts.some((text) => /^(-W|--worktree)$/.test(text))
    ) {
      return;
    }
    if (texts.some((text) => text.startsWith("--pathspec-from-file"))) {
      run.opaque(`git ${sub} --pathspec-from-file names its files in a file`);
      return;
    }
    const dash = texts.indexOf("--");
    const specs = dash >= 0 ? rest.slice(dash + 1) : operands(here, rest, sub === "checkout" ? "bBt" : "s");
    for (const word of specs) here.write(word, { git: true });
    return;
  }
  if (sub === "clean") {
    if (texts.some((text) => text === "-n" || text === "--dry-run")) return;
    const specs = operands(here, rest, "e");
    if (specs.length === 0) {
      run.tree(".", "git clean removes files it finds only when it runs", cwd);
      return;
    }
    for (const word of specs) here.write(word, { git: true });
    return;
  }
  if (sub === "rm" || sub === "mv" || sub === "update-index" || sub === "update-ref" || sub === "symbolic-ref" || sub === "replace") {
    for (const word of operands(here, rest)) here.write(word, { git: true });
    return;
  }
  run.opaque(`git ${sub} is not a git command slp knows (an alias can run anything)`);
}

/** git commit's `-n` alone or in a cluster (`-anm msg`), not inside an option's value (`-m "-n"`). */
function commitSkipsHooks(texts: readonly string[]): boolean {
  const valued = "mFcCt";
  for (let i = 0; i < texts.length; i++) {
    const text = texts[i] as string;
    if (text === "--") return false;
    if (/^--(message|file|reuse-message|reedit-message|template|author|date|fixup|squash|trailer|cleanup)$/.test(text)) i++;
    if (!/^-[A-Za-z]+$/.test(text)) continue;
    for (let k = 1; k < text.length; k++) {
      const char = text[k] as string;
      if (char === "n") return true;
      if (valued.includes(char)) {
        // The option's value is the rest of the cluster, or the next word.
        if (k === text.length - 1) i++;
        break;
      }
    }
  }
  return false;
}

function gitConfigKey(run: Run, setting: string): void {
  const key = setting.split("=")[0]?.toLowerCase() ?? "";
  if (key === "core.hookspath" || key.startsWith("include.") || key.startsWith("includeif.")) {
    run.human("G12", `git -c ${key} changes git's hooks, which are the human's`);
  }
}

function gitConfig(run: Run, args: readonly Word[]): void {
  const texts = args.map((word) => run.value(word) ?? "");
  for (const file of optionValues(run, args, "-f", "--file")) run.write(file);
  const reading = texts.some((text) => /^(--get|--get-all|--get-regexp|--list|-l|--show-origin|--show-scope|get|list)$/.test(text));
  const key =
    operands(run, args, "f")
      .map((word) => run.value(word) ?? "")[0]
      ?.toLowerCase() ?? "";
  const setting = ["set", "unset", "get", "list", "edit"].includes(key)
    ? (operands(run, args, "f").map((w) => run.value(w) ?? "")[1] ?? "").toLowerCase()
    : key;
  if (texts.includes("--edit") || texts.includes("-e") || key === "edit") {
    run.human("G12", "git config --edit may change git's hooks, which are the human's");
    return;
  }
  if (!reading && (setting === "core.hookspath" || setting.startsWith("include.") || setting.startsWith("includeif."))) {
    run.human("G12", `git config ${setting} changes git's hooks, which are the human's`);
  }
}
