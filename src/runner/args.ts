/**
 * Command-line flags derived from a task's input schema, parsed the way
 * Python's argparse parses the reference tool's: options before or after
 * positionals, `--flag=value`, any unambiguous prefix of a long option,
 * `-h`/`--help`. `projectDir` becomes `--project-dir`; an array is repeatable,
 * and one marked `nargs: "+"` also takes the bare words after it (dbt's
 * `--select a b`); a property marked `positional: true` takes the bare arguments.
 */
import type { TObject, TSchema } from "@sinclair/typebox";
import { UsageError } from "../core/errors.ts";
import { FORMATS, INFORMATION_FORMATS } from "../report/renderers.ts";
import type { Task } from "./define-task.ts";

export interface OptionSpec {
  key: string;
  flag: string;
  kind: "string" | "list" | "boolean";
  positional: boolean;
  required: boolean;
  metavar: string;
  description: string;
  choices?: string[];
  /** A list option that takes every bare word after it, as argparse's nargs="+". */
  greedy?: boolean;
  /** Other spellings of the flag, dbt's habits (`-s`, `-m`, `--models` for `--select`). */
  aliases?: string[];
}

export interface ParsedArgs {
  input: Record<string, unknown>;
  format: string;
  /** --quiet: INFO findings are not listed. */
  quiet: boolean;
  /** --output FILE: the report goes to this file, the summary line to the terminal. */
  output: string | undefined;
  help: boolean;
}

/** The flags every task takes, whatever its input: the report's format, --quiet and --output. */
const REPORT_FLAGS = ["--format", "--quiet", "--output"];

/** The options of a task, in schema order. */
export function optionsOf(task: Task<any, any>): OptionSpec[] {
  const schema = task.input as TObject;
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties).map(([key, property]) => {
    const prop = property as TSchema & Record<string, unknown>;
    const kind = prop.type === "array" ? "list" : prop.type === "boolean" ? "boolean" : "string";
    const choices = Array.isArray(prop.anyOf)
      ? (prop.anyOf as TSchema[]).map((option) => option.const).filter((value): value is string => typeof value === "string")
      : undefined;
    return {
      key,
      flag: `--${key.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}`,
      kind,
      positional: prop.positional === true,
      required: required.has(key) && prop.default === undefined,
      metavar: typeof prop.metavar === "string" ? prop.metavar : key.toUpperCase(),
      description: typeof prop.description === "string" ? prop.description : "",
      choices: choices && choices.length > 0 ? choices : undefined,
      greedy: prop.nargs === "+" ? true : undefined,
      aliases: Array.isArray(prop.aliases) ? (prop.aliases as string[]) : undefined,
    } satisfies OptionSpec;
  });
}

export function formatsOf(task: Task<any, any>): string[] {
  const base: readonly string[] = task.informational ? INFORMATION_FORMATS : FORMATS;
  return [...new Set([...base, ...(task.formats ?? [])])];
}

/** `usage: slp check [-h] [--project-dir DIR] ...` */
export function usageOf(task: Task<any, any>, prefix = "slp"): string {
  const parts = ["[-h]"];
  for (const option of optionsOf(task)) {
    if (option.positional) {
      const shown = option.kind === "list" ? `${option.metavar} [${option.metavar} ...]` : option.metavar;
      parts.push(option.required ? shown : `[${shown}]`);
      continue;
    }
    const shown = option.kind === "boolean" ? option.flag : `${option.flag} ${option.metavar}`;
    parts.push(option.required ? shown : `[${shown}]`);
  }
  parts.push(`[--format {${formatsOf(task).join(",")}}]`, "[--quiet]", "[--output FILE]");
  return `usage: ${prefix} ${task.name} ${parts.join(" ")}`;
}

/** The full `--help` text of a task. */
export function helpOf(task: Task<any, any>, prefix = "slp"): string {
  const lines = [usageOf(task, prefix), "", task.description, ""];
  const options = optionsOf(task);
  const positionals = options.filter((option) => option.positional);
  if (positionals.length > 0) {
    lines.push("positional arguments:");
    for (const option of positionals) lines.push(`  ${option.metavar.padEnd(24)} ${option.description}`);
    lines.push("");
  }
  lines.push("options:");
  lines.push(`  ${"-h, --help".padEnd(24)} show this help and exit`);
  for (const option of options.filter((o) => !o.positional)) {
    const flags = [...(option.aliases ?? []), option.flag].join(", ");
    const shown = option.kind === "boolean" ? flags : `${flags} ${option.metavar}`;
    const repeat = option.kind === "list" ? " (repeatable)" : "";
    lines.push(`  ${shown.padEnd(24)} ${option.description}${repeat}`);
  }
  lines.push(`  ${"--format FORMAT".padEnd(24)} output format: ${formatsOf(task).join(", ")} (default text)`);
  lines.push(`  ${"--quiet".padEnd(24)} leave INFO findings out (the summary still counts them; --format json keeps them)`);
  lines.push(`  ${"--output FILE".padEnd(24)} write the report to FILE; the terminal gets the summary line`);
  return `${lines.join("\n")}\n`;
}

export function parseArgs(task: Task<any, any>, argv: readonly string[], prefix = "slp"): ParsedArgs {
  const options = optionsOf(task);
  const usage = usageOf(task, prefix);
  const fail = (message: string): never => {
    throw new UsageError(message, usage);
  };
  const flagged = options.filter((option) => !option.positional);
  const longFlags = [
    ...flagged.map((option) => option.flag),
    "--help",
    ...REPORT_FLAGS.filter((flag) => !flagged.some((option) => option.flag === flag)),
  ];
  const input: Record<string, unknown> = {};
  const positionals: string[] = [];
  let format = "text";
  let quiet = false;
  let output: string | undefined;
  let help = false;

  const aliases = new Map(flagged.flatMap((option) => (option.aliases ?? []).map((alias) => [alias, option.flag] as const)));
  for (let i = 0; i < argv.length; i++) {
    const arg = spelledOut(argv[i] as string, aliases);
    if (arg === "--") {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (arg === "-h") {
      help = true;
      continue;
    }
    if (!arg.startsWith("--")) {
      if (arg.startsWith("-") && arg !== "-" && !/^-\d/.test(arg)) fail(`unrecognized arguments: ${arg}`);
      positionals.push(arg);
      continue;
    }
    const equals = arg.indexOf("=");
    const name = equals >= 0 ? arg.slice(0, equals) : arg;
    const inline = equals >= 0 ? arg.slice(equals + 1) : undefined;
    const flag = longFlags.includes(name) ? name : resolvePrefix(name, longFlags, fail);
    if (flag === "--help") {
      help = true;
      continue;
    }
    const takeValue = (): string => {
      if (inline !== undefined) return inline;
      const next = argv[i + 1];
      if (next === undefined || (next.startsWith("-") && next !== "-" && !/^-\d/.test(next))) {
        return fail(`argument ${flag}: expected one argument`);
      }
      i++;
      return next;
    };
    if (flag === "--format") {
      format = takeValue();
      const formats = formatsOf(task);
      if (!formats.includes(format))
        fail(`argument --format: invalid choice: '${format}' (choose from ${formats.map((f) => `'${f}'`).join(", ")})`);
      continue;
    }
    const option = flagged.find((candidate) => candidate.flag === flag);
    if (!option && flag === "--quiet") {
      if (inline !== undefined) fail(`argument --quiet: ignored explicit argument '${inline}'`);
      quiet = true;
      continue;
    }
    if (!option) {
      output = takeValue();
      continue;
    }
    if (option.kind === "boolean") {
      if (inline !== undefined) fail(`argument ${flag}: ignored explicit argument '${inline}'`);
      input[option.key] = true;
    } else {
      const value = takeValue();
      if (option.choices && !option.choices.includes(value)) {
        fail(`argument ${flag}: invalid choice: '${value}' (choose from ${option.choices.map((c) => `'${c}'`).join(", ")})`);
      }
      if (option.kind === "list") {
        const values = [value];
        // nargs="+": the bare words that follow belong to this option too.
        while (option.greedy && inline === undefined && argv[i + 1] !== undefined && !(argv[i + 1] as string).startsWith("-"))
          values.push(argv[++i] as string);
        input[option.key] = [...((input[option.key] as string[] | undefined) ?? []), ...values];
      } else input[option.key] = value;
    }
  }
  if (help) return { input, format, quiet, output, help };

  const positional = options.find((option) => option.positional);
  if (positional) {
    if (positional.kind === "list") {
      if (positionals.length > 0) input[positional.key] = positionals;
    } else if (positionals.length > 0) {
      input[positional.key] = positionals.shift();
    }
  }
  const extra = positional?.kind === "list" ? [] : positionals;
  if (extra.length > 0) fail(`unrecognized arguments: ${extra.join(" ")}`);
  const missing = options.filter((option) => option.required && input[option.key] === undefined);
  if (missing.length > 0) {
    fail(`the following arguments are required: ${missing.map((o) => (o.positional ? o.metavar : o.flag)).join(", ")}`);
  }
  return { input, format, quiet, output, help };
}

function resolvePrefix(name: string, flags: string[], fail: (message: string) => never): string {
  const matches = flags.filter((flag) => flag.startsWith(name));
  if (matches.length === 1) return matches[0] as string;
  if (matches.length === 0) return fail(`unrecognized arguments: ${name}`);
  return fail(`ambiguous option: ${name} could match ${matches.join(", ")}`);
}

/** An alias as the flag it stands for (`-s x` is `--select x`, `--models=x` is `--select=x`); anything else as given. */
function spelledOut(arg: string, aliases: ReadonlyMap<string, string>): string {
  const equals = arg.indexOf("=");
  const name = equals >= 0 ? arg.slice(0, equals) : arg;
  const flag = aliases.get(name);
  return flag === undefined ? arg : `${flag}${equals >= 0 ? arg.slice(equals) : ""}`;
}
