/**
 * Data tests as the gates see them (spec/rules.md §1.2-1.3): one identity
 * per (model, column, name, arguments), the keys that only change how a test
 * runs kept apart, and the predicate that tells a test that cannot fail.
 */
import { InputError } from "../../core/errors.ts";
import { canonicalJson, isMapping, type Mapping, type Value } from "../../core/values.ts";
import { displayValue } from "../../core/display.ts";
import { lineAt, Located, type WithLines } from "../files/lines.ts";

/** Keys that change how a test runs, not what it asserts. */
export const CONFIG_KEYS = new Set(["enabled", "error_if", "fail_calc", "limit", "severity", "store_failures", "warn_if", "where"]);
/** Keys that neither assert nor let a test fail; never compared on their own. */
export const INERT_KEYS = new Set([
  "tags",
  "meta",
  "description",
  "name",
  "store_failures_as",
  "schema",
  "database",
  "alias",
  "group",
  "docs",
]);
/** Threshold keys that can keep a failing test from failing the build. */
export const DEAD_KEYS = ["error_if", "warn_if", "fail_calc", "limit"] as const;
/** DEAD_KEYS plus `where`, which hides rows from the test. */
export const MUTE_KEYS = ["where", ...DEAD_KEYS] as const;

export interface DataTest {
  /** The test's name as written (`unique`, `dbt_utils.unique_combination_of_columns`). */
  name: string;
  /** The column it sits on, or "" for a model-level test. */
  column: string;
  /** Config and inert keys, flattened from the test body and `config:`. */
  config: Mapping;
  /** Everything else: what the test asserts. */
  args: Mapping;
  /** Canonical JSON of `args`: part of the test's identity. */
  argsKey: string;
  /** 1-based line of its item in the yml (computed when first read). */
  readonly line: number;
}

/** Reads one item of a `tests:`/`data_tests:` list. `where` says which model or column it is on ("column fct_orders.order_id"), for messages. */
export function readDataTest(
  item: Value,
  column: string,
  where: string,
  file: string,
  document: WithLines,
  path: readonly (string | number)[],
): DataTest {
  // Most tests are a bare name (`unique`): nothing to sort into config and arguments.
  if (typeof item === "string") return new ReadTest(document, path, item, column, {}, {});
  const line = () => lineAt(document, path);
  if (!isMapping(item)) throw cannotRead(where, item, file, line());
  const names = Object.keys(item);
  if (names.length !== 1) throw cannotRead(where, item, file, line());
  const name = names[0] as string;
  const value = item[name] as Value;
  if (value !== null && !isMapping(value)) throw cannotRead(where, item, file, line());
  const body: Mapping = value ?? {};

  const config: Mapping = {};
  const args: Mapping = {};
  for (const key of Object.keys(body)) {
    if (key === "arguments") continue;
    const entry = body[key] as Value;
    if (key === "config" && isMapping(entry)) continue;
    if (CONFIG_KEYS.has(key) || INERT_KEYS.has(key)) config[key] = entry;
    else args[key] = entry;
  }
  const nested = body.config;
  if (isMapping(nested)) {
    for (const key of Object.keys(nested)) {
      if (Object.hasOwn(body, key)) {
        throw new InputError(`ambiguous: ${key} of test ${name} on ${where} is given twice (on the test and under config)`, {
          file,
          line: line(),
          fix: "keep one of the two",
        });
      }
      const entry = nested[key] as Value;
      if (CONFIG_KEYS.has(key) || INERT_KEYS.has(key)) config[key] = entry;
      else args[key] = entry;
    }
  }
  const nestedArgs = body.arguments;
  if (nestedArgs !== undefined && nestedArgs !== null) {
    if (!isMapping(nestedArgs)) {
      throw new InputError(`arguments of ${name} on ${where} must be a mapping`, {
        file,
        line: line(),
        fix: "write the test's arguments as key: value pairs under arguments:",
      });
    }
    const keys = Object.keys(nestedArgs);
    const clash = keys.find((key) => Object.hasOwn(args, key));
    if (keys.length > 0 && clash !== undefined) {
      throw new InputError(`ambiguous: argument ${clash} of test ${name} on ${where} is given twice (on the test and under arguments)`, {
        file,
        line: line(),
        fix: "keep one of the two",
      });
    }
    for (const key of keys) args[key] = nestedArgs[key] as Value;
  }
  return new ReadTest(document, path, name, column, config, args);
}

/** A test as read: a class, so every test has one shape and finds its line when asked. */
class ReadTest extends Located implements DataTest {
  readonly argsKey: string;

  constructor(
    document: WithLines,
    path: readonly (string | number)[],
    readonly name: string,
    readonly column: string,
    readonly config: Mapping,
    readonly args: Mapping,
  ) {
    super(document, path);
    // Most tests take no argument: their identity needs no walk.
    this.argsKey = isEmpty(args) ? "{}" : canonicalJson(args);
  }
}

function isEmpty(mapping: Mapping): boolean {
  for (const _ in mapping) return false;
  return true;
}

function cannotRead(where: string, item: Value, file: string, line: number): InputError {
  return new InputError(`cannot read a test on ${where}: ${displayValue(item)}`, {
    file,
    line,
    fix: "write a test as its name, or as {name: {argument: value, ...}}",
  });
}

/** The config keys whose value decides whether a test fails, in the order a reason names them. */
export const FAILING_KEYS = ["enabled", "severity", ...MUTE_KEYS] as const;

/** True when a config value is Jinja (`{{ ... }}`, `{% ... %}`): dbt renders it per target, so it can differ between them. */
export function isJinja(value: Value | undefined): value is string {
  return typeof value === "string" && /\{\{|\{%/.test(value);
}

/** The reason clause for a key written as Jinja. */
export function jinjaReason(key: string, value: string): string {
  return `its ${key} is the Jinja ${value}, which dbt renders per target, so it can fail the build in one target and not in another`;
}

/**
 * Why a test cannot fail the build, or "" when it can (§1.3). `narrowing` is
 * MUTE_KEYS for T1 (a `where` hides the key's duplicates) and DEAD_KEYS for
 * new tests and singular tests (a new `where` is I3's business). Before the
 * reference's steps: a key that decides failing written as Jinja (a `where`
 * too) counts as a test that cannot fail, and the reason names it.
 */
export function cannotFailReason(config: Mapping, narrowing: readonly string[]): string {
  for (const key of FAILING_KEYS) if (isJinja(config[key])) return jinjaReason(key, config[key] as string);
  if (Object.hasOwn(config, "enabled") && config.enabled !== true) return "it is disabled";
  const severity = Object.hasOwn(config, "severity") ? config.severity : "error";
  if (displayValue(severity ?? null).toLowerCase() !== "error") return `its severity is ${displayValue(severity ?? null)}`;
  const present = narrowing.filter((key) => Object.hasOwn(config, key));
  return present.length > 0 ? `it sets ${present.join(", ")}` : "";
}

/**
 * A unit test its own config disables (`config: {enabled: false}`): slp unit
 * skips it, as dbt does, so it proves nothing and check does not count it.
 * (dbt_project.yml can disable unit tests by folder too; the project model
 * reads that.)
 */
export function unitTestDisabled(entry: Mapping): boolean {
  return isMapping(entry.config) && entry.config.enabled === false;
}
