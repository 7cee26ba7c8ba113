/**
 * dbt's `modules` context member: `modules.datetime` (Python's datetime:
 * datetime, date and timedelta, their arithmetic, strftime/strptime,
 * isoformat) as models use it, with "now" being the run's start (as
 * run_started_at is), so a render is deterministic. `modules.re` and
 * `modules.itertools` are named refusals (a regular expression an agent
 * writes could run for ever: slp's templates run no regex), and so is every
 * zone of `modules.pytz` but UTC (the others need the tz database).
 */
import { SlpError } from "../core/errors.ts";
import { exposeMembers, type JinjaCallable, PY_OPERATORS, type PyOperators, printable, splitArgs, TEMPLATE_LOOKUP } from "./jinja.ts";

const DAY_MS = 86_400_000;
const DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"];
const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];

function refusal(message: string): SlpError {
  return new SlpError("E_RENDER", message, { fix: "override the macro that uses it in the test's overrides.macros" });
}

function whole(value: unknown, what: string): number {
  const n = typeof value === "number" ? value : Number.NaN;
  if (!Number.isInteger(n)) throw refusal(`${what} must be a whole number, not ${printable(value)}`);
  return n;
}

const pad = (n: number, width = 2) => String(Math.abs(n)).padStart(width, "0");

/** Python's timedelta: a duration in milliseconds (microseconds beyond them are not kept). */
export class Timedelta {
  constructor(readonly ms: number) {}
  get days(): number {
    return Math.floor(this.ms / DAY_MS);
  }
  get seconds(): number {
    return Math.floor((this.ms - this.days * DAY_MS) / 1000);
  }
  get microseconds(): number {
    return (this.ms % 1000) * 1000;
  }
  total_seconds(): number {
    return this.ms / 1000;
  }
  toString(): string {
    const days = this.days;
    const rest = this.ms - days * DAY_MS;
    const clock = `${Math.floor(rest / 3_600_000)}:${pad(Math.floor(rest / 60_000) % 60)}:${pad(Math.floor(rest / 1000) % 60)}${rest % 1000 ? `.${pad((rest % 1000) * 1000, 6)}` : ""}`;
    return days === 0 ? clock : `${days} day${Math.abs(days) === 1 ? "" : "s"}, ${clock}`;
  }
  readonly [TEMPLATE_LOOKUP] = exposeMembers(this, ["days", "seconds", "microseconds", "total_seconds"]);
  readonly [PY_OPERATORS]: PyOperators = {
    binary: (op, other, reflected) => {
      if (other instanceof Timedelta) {
        if (op === "+") return new Timedelta(this.ms + other.ms);
        if (op === "-") return new Timedelta(reflected ? other.ms - this.ms : this.ms - other.ms);
        if (op === "/" && !reflected) return this.ms / other.ms;
      }
      if (typeof other === "number" && op === "*") return new Timedelta(Math.round(this.ms * other));
      if (typeof other === "number" && (op === "/" || op === "//") && !reflected) return new Timedelta(Math.floor(this.ms / other));
      return undefined;
    },
    compare: (other) => (other instanceof Timedelta ? Math.sign(this.ms - other.ms) : undefined),
  };
}

const DATE_MEMBERS = ["year", "month", "day", "weekday", "isoweekday", "date", "isoformat", "strftime", "replace"];
const TIME_MEMBERS = ["hour", "minute", "second", "microsecond", "timestamp"];

/** Python's naive datetime and date: a UTC instant and whether it is a date only. */
export class DateTime {
  constructor(
    readonly ms: number,
    readonly dateOnly: boolean,
  ) {}
  #d(): Date {
    return new Date(this.ms);
  }
  get year(): number {
    return this.#d().getUTCFullYear();
  }
  get month(): number {
    return this.#d().getUTCMonth() + 1;
  }
  get day(): number {
    return this.#d().getUTCDate();
  }
  get hour(): number {
    return this.#d().getUTCHours();
  }
  get minute(): number {
    return this.#d().getUTCMinutes();
  }
  get second(): number {
    return this.#d().getUTCSeconds();
  }
  get microsecond(): number {
    return this.#d().getUTCMilliseconds() * 1000;
  }
  weekday(): number {
    return (this.#d().getUTCDay() + 6) % 7;
  }
  isoweekday(): number {
    return this.weekday() + 1;
  }
  date(): DateTime {
    return new DateTime(Math.floor(this.ms / DAY_MS) * DAY_MS, true);
  }
  timestamp(): number {
    return this.ms / 1000;
  }
  isoformat(...args: unknown[]): string {
    const separator = printable(splitArgs(args).positional[0] ?? "T");
    const date = `${pad(this.year, 4)}-${pad(this.month)}-${pad(this.day)}`;
    if (this.dateOnly) return date;
    return `${date}${separator}${pad(this.hour)}:${pad(this.minute)}:${pad(this.second)}${this.microsecond ? `.${pad(this.microsecond, 6)}` : ""}`;
  }
  strftime(format: unknown): string {
    return printable(format).replace(/%([a-zA-Z%])/g, (whole, code: string) => {
      switch (code) {
        case "Y":
          return pad(this.year, 4);
        case "y":
          return pad(this.year % 100);
        case "m":
          return pad(this.month);
        case "d":
          return pad(this.day);
        case "H":
          return pad(this.hour);
        case "I":
          return pad(this.hour % 12 || 12);
        case "p":
          return this.hour < 12 ? "AM" : "PM";
        case "M":
          return pad(this.minute);
        case "S":
          return pad(this.second);
        case "f":
          return pad(this.microsecond, 6);
        case "j":
          return pad(Math.floor((this.date().ms - Date.UTC(this.year, 0, 1)) / DAY_MS) + 1, 3);
        case "a":
          return (DAYS[this.weekday()] as string).slice(0, 3);
        case "A":
          return DAYS[this.weekday()] as string;
        case "b":
          return (MONTHS[this.month - 1] as string).slice(0, 3);
        case "B":
          return MONTHS[this.month - 1] as string;
        case "w":
          return String((this.weekday() + 1) % 7);
        case "z":
        case "Z":
          return "";
        case "%":
          return "%";
        default:
          return whole;
      }
    });
  }
  replace(...args: unknown[]): DateTime {
    const { keywords } = splitArgs(args);
    const get = (key: string, current: number) => (keywords[key] === undefined ? current : whole(keywords[key], key));
    return new DateTime(
      Date.UTC(
        get("year", this.year),
        get("month", this.month) - 1,
        get("day", this.day),
        get("hour", this.hour),
        get("minute", this.minute),
        get("second", this.second),
        Math.floor(get("microsecond", this.microsecond) / 1000),
      ),
      this.dateOnly,
    );
  }
  toString(): string {
    return this.isoformat(" ");
  }
  readonly [TEMPLATE_LOOKUP] = (name: string): unknown =>
    exposeMembers(this, this.dateOnly ? DATE_MEMBERS : [...DATE_MEMBERS, ...TIME_MEMBERS])(name);
  readonly [PY_OPERATORS]: PyOperators = {
    binary: (op, other, reflected) => {
      if (other instanceof Timedelta && (op === "+" || (op === "-" && !reflected))) {
        const ms = op === "+" ? this.ms + other.ms : this.ms - other.ms;
        return new DateTime(this.dateOnly ? Math.floor(ms / DAY_MS) * DAY_MS : ms, this.dateOnly);
      }
      if (other instanceof DateTime && op === "-" && other.dateOnly === this.dateOnly)
        return new Timedelta(reflected ? other.ms - this.ms : this.ms - other.ms);
      return undefined;
    },
    compare: (other) => (other instanceof DateTime && other.dateOnly === this.dateOnly ? Math.sign(this.ms - other.ms) : undefined),
  };
}

function construct(args: unknown[], dateOnly: boolean): DateTime {
  const { positional, keywords } = splitArgs(args);
  const names = ["year", "month", "day", "hour", "minute", "second", "microsecond"];
  const parts = names.map((name, i) => {
    const value = positional[i] ?? keywords[name];
    return value === undefined ? (i < 3 ? Number.NaN : 0) : whole(value, name);
  });
  const [year, month, day, hour, minute, second, microsecond] = parts as [number, number, number, number, number, number, number];
  const ms = Date.UTC(year, month - 1, day, hour, minute, second, Math.floor(microsecond / 1000));
  const check = new Date(ms);
  if (Number.isNaN(ms) || check.getUTCDate() !== day || check.getUTCMonth() !== month - 1)
    throw refusal(`${dateOnly ? "date" : "datetime"}(${parts.slice(0, 3).join(", ")}): day is out of range for month`);
  return new DateTime(ms, dateOnly);
}

function timedelta(...args: unknown[]): Timedelta {
  const { positional, keywords } = splitArgs(args);
  const units: [string, number][] = [
    ["days", DAY_MS],
    ["seconds", 1000],
    ["microseconds", 0.001],
    ["milliseconds", 1],
    ["minutes", 60_000],
    ["hours", 3_600_000],
    ["weeks", 7 * DAY_MS],
  ];
  let ms = 0;
  units.forEach(([name, size], i) => {
    const value = positional[i] ?? keywords[name];
    if (value === undefined) return;
    if (typeof value !== "number") throw refusal(`timedelta(${name}=...) takes a number, not ${printable(value)}`);
    ms += value * size;
  });
  return new Timedelta(Math.round(ms));
}

/** strptime for the directives dbt projects use; anything else is a refusal naming it. */
function strptime(text: unknown, format: unknown): DateTime {
  const source = printable(text);
  const fields: Record<string, number> = { Y: 1900, m: 1, d: 1, H: 0, M: 0, S: 0, f: 0 };
  let pattern = "";
  const order: string[] = [];
  for (const [, literal, code] of printable(format).matchAll(/([^%]*)(?:%([a-zA-Z%]))?/g)) {
    pattern += (literal ?? "").replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    if (code === undefined) continue;
    if (code === "%") pattern += "%";
    else if ("YmdHMSfy".includes(code)) {
      pattern += code === "Y" ? "(\\d{4})" : code === "f" ? "(\\d{1,6})" : "(\\d{1,2})";
      order.push(code);
    } else throw refusal(`datetime.strptime: the directive %${code} is not one slp reads`);
  }
  const match = new RegExp(`^${pattern}$`).exec(source);
  if (!match) throw refusal(`time data '${source}' does not match format '${printable(format)}'`);
  order.forEach((code, i) => {
    const value = match[i + 1] as string;
    if (code === "y") fields.Y = 2000 + Number(value) - (Number(value) >= 69 ? 100 : 0);
    else if (code === "f") fields.f = Number(value.padEnd(6, "0"));
    else fields[code] = Number(value);
  });
  return construct([fields.Y, fields.m, fields.d, fields.H, fields.M, fields.S, fields.f], false);
}

function fromisoformat(text: unknown, dateOnly: boolean): DateTime {
  const source = printable(text);
  const match = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?)?$/.exec(source);
  if (!match || (dateOnly && match[4] !== undefined)) throw refusal(`Invalid isoformat string: '${source}'`);
  const [, y, mo, d, h = "0", mi = "0", s = "0", f = "0"] = match;
  return construct([Number(y), Number(mo), Number(d), Number(h), Number(mi), Number(s), Number(f.padEnd(6, "0"))], dateOnly);
}

/** A callable with attributes, as a Python class is (`datetime.datetime(...)`, `datetime.datetime.now()`). */
function classOf(call: JinjaCallable, members: Record<string, unknown>): JinjaCallable {
  return Object.assign((...args: unknown[]) => call(...args), members);
}

/**
 * pytz's UTC zone, the one time zone slp knows without the tz database:
 * `modules.pytz.utc`, `modules.pytz.timezone('UTC')` (what
 * `run_started_at.astimezone(...)` takes, run_started_at being in UTC).
 */
export const UTC_ZONE = {
  toString: () => "UTC",
  [TEMPLATE_LOOKUP]: (name: string): unknown => (name === "zone" ? "UTC" : undefined),
};

function pytz(): object {
  const why = "time zones other than UTC need the tz database, which slp's renderer does not carry";
  return {
    [TEMPLATE_LOOKUP]: (name: string) => {
      if (name === "utc" || name === "UTC") return UTC_ZONE;
      if (name === "timezone")
        return (zone: unknown) => {
          if (["UTC", "Etc/UTC", "utc"].includes(printable(zone))) return UTC_ZONE;
          throw refusal(`modules.pytz.timezone('${printable(zone)}') is not provided by slp: ${why}`);
        };
      throw refusal(`modules.pytz.${name} is not provided by slp: ${why}`);
    },
  };
}

/** `modules` as dbt gives it, its now() being `startedAt`. */
export function dbtModules(startedAt: Date): object {
  const now = () => new DateTime(startedAt.getTime(), false);
  const datetime = {
    datetime: classOf((...args) => construct(args, false), {
      now,
      utcnow: now,
      today: now,
      strptime,
      fromisoformat: (text: unknown) => fromisoformat(text, false),
      combine: (date: unknown) => (date instanceof DateTime ? new DateTime(date.ms, false) : undefined),
    }),
    date: classOf((...args) => construct(args, true), {
      today: () => now().date(),
      fromisoformat: (text: unknown) => fromisoformat(text, true),
    }),
    timedelta,
  };
  const refused = (name: string, why: string) => ({
    [TEMPLATE_LOOKUP]: () => {
      throw refusal(`modules.${name} is not provided by slp: ${why}`);
    },
  });
  return {
    datetime,
    re: refused("re", "a regular expression written in a template could run for ever, and slp's templates run none"),
    pytz: pytz(),
    itertools: refused("itertools", "slp provides Jinja's filters (batch, groupby, unique ...) instead"),
  };
}
