/**
 * The resource limits that keep agent-written input from exhausting the
 * machine: one table, each limit's default, the slp.yml key and the
 * environment variable that set it. A limit hit is a LimitError (exit 2)
 * naming the limit and both ways to raise it; it never turns into a pass.
 *
 * Precedence, lowest first: the default, `limits:` in slp.yml, then
 * `SLP_LIMIT_<KEY>` in the environment (set by the CI workflow, which a
 * branch cannot change without gate's G9 noticing).
 */
import { SlpError } from "./errors.ts";

export interface LimitSpec {
  /** What one unit of the limit is, for messages ("MiB", "seconds"). */
  unit: string;
  default: number;
  /** The smallest value that makes sense (0 would turn a limit into a refusal of everything). */
  min: number;
  /** Whether the value must be whole. */
  integer: boolean;
  /** What it bounds, as the README's table says it. */
  bounds: string;
}

/** Every limit, by its slp.yml key. The README's limits table lists these. */
export const LIMITS = {
  file_mb: {
    unit: "MiB",
    default: 16,
    min: 0.001,
    integer: false,
    bounds: "the size of any one file slp reads: yml, sql, csv, CODEOWNERS, diff.json, slp.yml, a git blob",
  },
  yaml_values: {
    unit: "values",
    default: 1_000_000,
    min: 1,
    integer: true,
    bounds: "the values one YAML document holds once its aliases (*anchor) and merge keys (<<) are expanded",
  },
  nesting_depth: {
    unit: "levels",
    default: 256,
    min: 1,
    integer: true,
    bounds: "how deeply YAML and JSON values, template blocks and macro calls nest",
  },
  template_steps: {
    unit: "steps",
    default: 5_000_000,
    min: 1,
    integer: true,
    bounds: "the loop iterations and calls one template render may take",
  },
  template_output_mb: {
    unit: "MiB",
    default: 16,
    min: 0.001,
    integer: false,
    bounds: "the text one template render may write, what its macros return included",
  },
  unit_query_seconds: {
    unit: "seconds",
    default: 60,
    min: 0.001,
    integer: false,
    bounds: "how long one unit-test query may run in DuckDB before it is interrupted",
  },
  unit_result_rows: {
    unit: "rows",
    default: 100_000,
    min: 1,
    integer: true,
    bounds: "the rows slp reads back from one unit-test query (the failure table)",
  },
  duckdb_memory_mb: {
    unit: "MiB",
    default: 2048,
    min: 16,
    integer: true,
    bounds: "the memory the embedded DuckDB may use (memory_limit; nothing spills to disk)",
  },
  duckdb_threads: {
    unit: "threads",
    default: 2,
    min: 1,
    integer: true,
    bounds: "the threads the embedded DuckDB may use",
  },
} as const satisfies Record<string, LimitSpec>;

export type LimitName = keyof typeof LIMITS;
export const LIMIT_NAMES = Object.keys(LIMITS) as LimitName[];

/** `SLP_LIMIT_FILE_MB` for `file_mb`. */
export function limitEnvVar(name: LimitName): string {
  return `SLP_LIMIT_${name.toUpperCase()}`;
}

/** A limit was reached: could not judge, with the limit named and how to raise it. */
export class LimitError extends SlpError {
  readonly limit: LimitName;
  constructor(limit: LimitName, what: string, place: { file?: string; line?: number } = {}) {
    super("E_LIMIT", `${what} (limit ${limit} = ${formatLimit(limit)})`, {
      ...place,
      fix: `if this input is legitimate, raise the limit: ${limitEnvVar(limit)}=<${LIMITS[limit].unit}> in the environment, or limits: {${limit}: ...} in slp.yml`,
    });
    this.limit = limit;
  }
}

/** A setting slp cannot use: not a number, below the limit's minimum, or not whole. */
export class LimitSettingError extends SlpError {
  constructor(message: string, place: { file?: string; line?: number } = {}) {
    super("E_CONFIG", message, { ...place, fix: "set it to a positive number (see the README's Limits section)" });
  }
}

type Values = Record<LimitName, number>;

function defaults(): Values {
  return Object.fromEntries(LIMIT_NAMES.map((name) => [name, LIMITS[name].default])) as Values;
}

let fromEnvironment: Partial<Values> = {};
let fromConfig: Partial<Values> = {};
let current: Values = defaults();

/** The value in force. */
export function limit(name: LimitName): number {
  return current[name];
}

/** Bytes for the MiB limits. */
export function limitBytes(name: "file_mb" | "template_output_mb" | "duckdb_memory_mb"): number {
  return Math.floor(current[name] * 1024 * 1024);
}

/** As it reads in a message: `16 MiB`, `60 seconds`. */
export function formatLimit(name: LimitName): string {
  return `${current[name].toLocaleString("en-US", { maximumFractionDigits: 3 })} ${LIMITS[name].unit}`;
}

/**
 * Starts an invocation: the environment's `SLP_LIMIT_*` values, no slp.yml
 * yet. A variable that is not a usable number is refused, never ignored.
 */
export function configureLimits(env: Record<string, string | undefined>): void {
  const values: Partial<Values> = {};
  for (const name of LIMIT_NAMES) {
    const text = env[limitEnvVar(name)];
    if (text === undefined || text.trim() === "") continue;
    values[name] = checked(name, Number(text.trim()), `${limitEnvVar(name)}=${text}`, {});
  }
  fromEnvironment = values;
  fromConfig = {};
  current = { ...defaults(), ...fromConfig, ...fromEnvironment };
}

/**
 * The `limits:` of an slp.yml (its shape already validated by the config
 * schema); the environment still wins. `lineOf` places a bad value.
 */
export function applyConfiguredLimits(
  limits: Record<string, unknown> | undefined,
  file: string,
  lineOf: (key: string) => number | undefined = () => undefined,
): void {
  const values: Partial<Values> = {};
  for (const name of LIMIT_NAMES) {
    const value = limits?.[name];
    if (value === undefined) continue;
    values[name] = checked(name, value, `limits.${name}: ${String(value)}`, { file, line: lineOf(name) });
  }
  fromConfig = values;
  current = { ...defaults(), ...fromConfig, ...fromEnvironment };
}

function checked(name: LimitName, value: unknown, shown: string, place: { file?: string; line?: number }): number {
  const spec: LimitSpec = LIMITS[name];
  if (typeof value !== "number" || !Number.isFinite(value)) throw new LimitSettingError(`${shown} is not a number`, place);
  if (value < spec.min) throw new LimitSettingError(`${shown} is below ${spec.min} ${spec.unit}, the least ${name} can be`, place);
  if (spec.integer && !Number.isInteger(value)) throw new LimitSettingError(`${shown} must be a whole number of ${spec.unit}`, place);
  return value;
}
