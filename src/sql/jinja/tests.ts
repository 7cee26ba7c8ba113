/** Jinja2's builtin tests (jinja2/tests.py): `x is defined`, `x is none`, `x is divisibleby 3`, ... */
import { TemplateRuntimeError } from "./errors.ts";
import {
  contains,
  isFloat,
  isPlainMapping,
  Namespace,
  numberOf,
  pyCompare,
  pyEquals,
  PyFloat,
  readable,
  TEMPLATE_LOOKUP,
  Undefined,
} from "./values.ts";

const isUndefined = (value: unknown) => value === undefined || value instanceof Undefined;
const isNumber = (value: unknown) => typeof value === "number" || value instanceof PyFloat;

const TESTS: Record<string, (value: unknown, ...args: unknown[]) => boolean> = {
  boolean: (value) => typeof value === "boolean",
  callable: (value) => typeof value === "function",
  defined: (value) => !isUndefined(value),
  divisibleby: (value, by) => {
    const n = numberOf(value);
    const d = numberOf(by);
    if (n === null || d === null || d === 0) throw new TemplateRuntimeError("divisibleby needs two numbers, the second not 0");
    return n % d === 0;
  },
  eq: (value, other) => pyEquals(value, other),
  escaped: () => false,
  even: (value) => (numberOf(value) ?? 1) % 2 === 0,
  false: (value) => value === false,
  float: (value) => isFloat(value),
  ge: (value, other) => pyCompare(value, other) >= 0,
  gt: (value, other) => pyCompare(value, other) > 0,
  in: (value, container) => contains(container, value),
  integer: (value) => typeof value === "number" && Number.isInteger(value),
  iterable: (value) => typeof value === "string" || Array.isArray(value) || isPlainMapping(value) || value instanceof Namespace,
  le: (value, other) => pyCompare(value, other) <= 0,
  lower: (value) => typeof value === "string" && value === value.toLowerCase(),
  lt: (value, other) => pyCompare(value, other) < 0,
  mapping: (value) => isPlainMapping(value) || (typeof value === "object" && value !== null && TEMPLATE_LOOKUP in value),
  ne: (value, other) => !pyEquals(value, other),
  none: (value) => value === null,
  number: (value) => isNumber(value),
  odd: (value) => Math.abs((numberOf(value) ?? 0) % 2) === 1,
  sameas: (value, other) => value === other || (value instanceof PyFloat && other instanceof PyFloat && value.value === other.value),
  sequence: (value) => typeof value === "string" || Array.isArray(value) || isPlainMapping(value),
  string: (value) => typeof value === "string",
  true: (value) => value === true,
  undefined: (value) => isUndefined(value),
  upper: (value) => typeof value === "string" && value === value.toUpperCase(),
};
TESTS["=="] = TESTS.eq as (value: unknown) => boolean;
TESTS.equalto = TESTS.eq as (value: unknown) => boolean;
TESTS["!="] = TESTS.ne as (value: unknown) => boolean;
TESTS[">"] = TESTS.gt as (value: unknown) => boolean;
TESTS.greaterthan = TESTS.gt as (value: unknown) => boolean;
TESTS[">="] = TESTS.ge as (value: unknown) => boolean;
TESTS["<"] = TESTS.lt as (value: unknown) => boolean;
TESTS.lessthan = TESTS.lt as (value: unknown) => boolean;
TESTS["<="] = TESTS.le as (value: unknown) => boolean;

/** Runs the test `name`; an unknown name is an error, as in Jinja2. */
export function applyTest(name: string, value: unknown, args: unknown[]): boolean {
  if (!Object.hasOwn(TESTS, name)) throw new TemplateRuntimeError(`test not found: ${name}`);
  // A warehouse's answer is defined (None or a relation), and reading anything more of it is its refusal.
  if (name !== "defined" && name !== "undefined") readable(value);
  return (TESTS[name] as (value: unknown, ...args: unknown[]) => boolean)(value, ...args);
}
