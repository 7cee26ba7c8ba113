/**
 * dbt's `modules` context member: `modules.datetime` (Python's datetime:
 * datetime, naive or aware in UTC or a fixed offset, date and timedelta,
 * their arithmetic, strftime/strptime, isoformat) as models use it, and the
 * datetime run_started_at is, with "now" being the run's start (as
 * run_started_at is), so a render is deterministic. `modules.re` and
 * `modules.itertools` are named refusals (a regular expression an agent
 * writes could run for ever: slp's templates run no regex), and so is every
 * zone of `modules.pytz` but UTC (the others need the tz database).
 */
import { SlpError } from "../core/errors.ts";
import {
  exposeMembers,
  type JinjaCallable,
  makeFloat,
  PY_OPERATORS,
  type PyOperators,
  printable,
  splitArgs,
  TEMPLATE_LOOKUP,
} from "./jinja.ts";

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
  total_seconds(): unknown {
    return makeFloat(this.ms / 1000);
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
const TIME_MEMBERS = ["hour", "minute", "second", "microsecond", "timestamp", "tzinfo", "astimezone", "utcoffset", "tzname"];

/**
 * A tzinfo with a fixed offset from UTC: pytz's UTC zone (which has
 * `localize` and `zone`), or `datetime.timezone(offset)` as fromisoformat
 * gives for `+00:00` (printed `UTC`) or `+05:30` (printed `UTC+05:30`).
 */
export class FixedZone {
  constructor(
    readonly offsetMinutes: number,
    readonly pytz: boolean,
  ) {}
  toString(): string {
    if (this.offsetMinutes === 0) return "UTC";
    return `UTC${offsetText(this.offsetMinutes, ":")}`;
  }
  utcoffset(): Timedelta {
    return new Timedelta(this.offsetMinutes * 60_000);
  }
  tzname(): string {
    return this.toString();
  }
  /** pytz's `zone.localize(naive)`: the same wall clock in this zone; an aware datetime is pytz's ValueError. */
  localize(value: unknown): DateTime {
    if (!(value instanceof DateTime) || value.dateOnly) throw refusal(`localize() takes a datetime, not ${printable(value)}`);
    if (value.tzinfo !== null) throw refusal("Not naive datetime (tzinfo is already set)");
    return new DateTime(value.ms, false, this);
  }
  get zone(): string {
    return "UTC";
  }
  readonly [TEMPLATE_LOOKUP] = (name: string): unknown =>
    exposeMembers(this, this.pytz ? ["utcoffset", "tzname", "localize", "zone"] : ["utcoffset", "tzname"])(name);
}

/** `+05:30` (separator ":") or `+0530` (separator ""), as Python prints an offset. */
function offsetText(minutes: number, separator: string): string {
  return `${minutes < 0 ? "-" : "+"}${pad(Math.floor(Math.abs(minutes) / 60))}${separator}${pad(Math.abs(minutes) % 60)}`;
}

/**
 * Python's datetime and date: the wall clock as a UTC instant (`ms`),
 * whether it is a date only, and the tzinfo of an aware datetime (null when
 * naive, as Python's `tzinfo is none`).
 */
export class DateTime {
  constructor(
    readonly ms: number,
    readonly dateOnly: boolean,
    readonly tzinfo: FixedZone | null = null,
  ) {}
  /** The instant in UTC, what aware datetimes compare and subtract by. */
  #utc(): number {
    return this.ms - (this.tzinfo?.offsetMinutes ?? 0) * 60_000;
  }
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
  /** Seconds since the epoch; a naive datetime counts as UTC (Python takes the machine's zone, which a render must not depend on). */
  timestamp(): unknown {
    return makeFloat(this.#utc() / 1000);
  }
  utcoffset(): Timedelta | null {
    return this.tzinfo?.utcoffset() ?? null;
  }
  tzname(): string | null {
    return this.tzinfo?.tzname() ?? null;
  }
  /** The same instant in `zone`; without a zone Python takes the machine's, which slp refuses (a render must not depend on it). */
  astimezone(zone: unknown): DateTime {
    if (!(zone instanceof FixedZone))
      throw refusal(
        zone === undefined
          ? "astimezone() without a zone takes the machine's time zone, which slp does not use: pass modules.pytz.utc"
          : `astimezone(${printable(zone)}) is given a zone slp does not know: slp's renderer knows UTC and fixed offsets only`,
      );
    return new DateTime(this.#utc() + zone.offsetMinutes * 60_000, false, zone);
  }
  isoformat(...args: unknown[]): string {
    const separator = printable(splitArgs(args).positional[0] ?? "T");
    const date = `${pad(this.year, 4)}-${pad(this.month)}-${pad(this.day)}`;
    if (this.dateOnly) return date;
    const offset = this.tzinfo ? offsetText(this.tzinfo.offsetMinutes, ":") : "";
    return `${date}${separator}${pad(this.hour)}:${pad(this.minute)}:${pad(this.second)}${this.microsecond ? `.${pad(this.microsecond, 6)}` : ""}${offset}`;
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
          return this.tzinfo ? offsetText(this.tzinfo.offsetMinutes, "") : "";
        case "Z":
          return this.tzinfo ? this.tzinfo.tzname() : "";
        case "%":
          return "%";
        default:
          return whole;
      }
    });
  }
  replace(...args: unknown[]): DateTime {
    const { keywords } = splitArgs(args);
    const tzinfo = keywords.tzinfo === undefined ? this.tzinfo : zoneOf(keywords.tzinfo);
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
      this.dateOnly ? null : tzinfo,
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
        return new DateTime(this.dateOnly ? Math.floor(ms / DAY_MS) * DAY_MS : ms, this.dateOnly, this.tzinfo);
      }
      if (this.#comparable(other) && op === "-") return new Timedelta(reflected ? other.#utc() - this.#utc() : this.#utc() - other.#utc());
      return undefined;
    },
    compare: (other) => (this.#comparable(other) ? Math.sign(this.#utc() - other.#utc()) : undefined),
  };
  /** Python orders and subtracts dates with dates, and datetimes with datetimes both naive or both aware (a TypeError otherwise). */
  #comparable(other: unknown): other is DateTime {
    return other instanceof DateTime && other.dateOnly === this.dateOnly && (other.tzinfo === null) === (this.tzinfo === null);
  }
}

/** A tzinfo argument: None or a zone slp knows (modules.pytz.utc, a fromisoformat offset). */
function zoneOf(value: unknown): FixedZone | null {
  if (value === null || value === undefined) return null;
  if (value instanceof FixedZone) return value;
  throw refusal(`tzinfo=${printable(value)} is not a time zone slp knows`);
}

function construct(args: unknown[], dateOnly: boolean): DateTime {
  const { positional, keywords } = splitArgs(args);
  const tzinfo = dateOnly ? null : zoneOf(positional[7] ?? keywords.tzinfo);
  const names = ["year", "month", "day", "hour", "minute", "second", "microsecond"];
  const parts = names.map((name, i) => {
    const value = positional[i] ?? keywords[name];
    return value === undefined ? (i < 3 ? Number.NaN : 0) : whole(value, name);
  });
  const [year, month, day, hour, minute, second, microsecond] = parts as [number, number, number, number, number, number, number];
  // slp keeps a datetime to the millisecond (a JavaScript instant): finer microseconds are refused, not dropped.
  if (microsecond % 1000 !== 0) throw refusal(`datetime(..., microsecond=${microsecond}): slp keeps datetimes to the millisecond`);
  const ms = Date.UTC(year, month - 1, day, hour, minute, second, Math.floor(microsecond / 1000));
  const check = new Date(ms);
  if (Number.isNaN(ms) || check.getUTCDate() !== day || check.getUTCMonth() !== month - 1)
    throw refusal(`${dateOnly ? "date" : "datetime"}(${parts.slice(0, 3).join(", ")}): day is out of range for month`);
  return new DateTime(ms, dateOnly, tzinfo);
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

const ISO_TIME = String.raw`(\d{2})(?::?(\d{2})(?::?(\d{2})(?:[.,](\d+))?)?)?`;
const ISO_DATETIME = new RegExp(String.raw`^(\d{4})-?(\d{2})-?(\d{2})(?:.${ISO_TIME}(Z|[+-]${ISO_TIME})?)?$`, "s");

/**
 * Python 3.11's fromisoformat (dbt runs 3.9+; models written today assume
 * 3.11): `YYYY-MM-DD` or `YYYYMMDD`, then for a datetime any one separator
 * and `HH[:MM[:SS[.f...]]]` (basic `HHMMSS` too; fractions past six digits
 * cut), then `Z` or a `±HH[:MM[:SS[.ffffff]]]` offset (a timezone, `+00:00`
 * being timezone.utc). ISO week dates (`2026-W33`) are refused by name.
 */
function fromisoformat(text: unknown, dateOnly: boolean): DateTime {
  const source = printable(text);
  if (/^\d{4}-?W\d/.test(source)) throw refusal(`fromisoformat('${source}'): ISO week dates are not read by slp; write the calendar date`);
  const match = ISO_DATETIME.exec(source);
  const invalid = () => refusal(`Invalid isoformat string: '${source}'`);
  if (!match || (dateOnly && match[4] !== undefined)) throw invalid();
  const [, y, mo, d, h = "0", mi = "0", s = "0", f = "0", zone, zh = "0", zm = "0", zs = "0", zf = "0"] = match;
  if ((zone ?? "").startsWith("+") || (zone ?? "").startsWith("-")) {
    if (Number(zh) > 23 || Number(zm) > 59 || Number(zs) > 59) throw invalid();
    if (Number(zs) !== 0 || Number(zf) !== 0) throw refusal(`fromisoformat('${source}'): offsets with seconds are not kept by slp`);
  }
  if (Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) throw invalid();
  const offset = zone === undefined ? null : zone === "Z" ? 0 : (zone.startsWith("-") ? -1 : 1) * (Number(zh) * 60 + Number(zm));
  const fields = [Number(y), Number(mo), Number(d), Number(h), Number(mi), Number(s), Number(f.slice(0, 6).padEnd(6, "0"))];
  return construct([...fields, offset === null ? null : offset === 0 ? TIMEZONE_UTC : new FixedZone(offset, false)], dateOnly);
}

/** A callable with attributes, as a Python class is (`datetime.datetime(...)`, `datetime.datetime.now()`). */
function classOf(call: JinjaCallable, members: Record<string, unknown>): JinjaCallable {
  return Object.assign((...args: unknown[]) => call(...args), members);
}

/**
 * pytz's UTC zone, the one time zone slp knows without the tz database:
 * `modules.pytz.utc`, `modules.pytz.timezone('UTC')`, run_started_at's
 * tzinfo (dbt takes `datetime.now(pytz.utc)`).
 */
export const UTC_ZONE = new FixedZone(0, true);
/** `datetime.timezone.utc`, what fromisoformat gives for `Z` or `+00:00` (no `localize`, pytz's own). */
const TIMEZONE_UTC = new FixedZone(0, false);

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
  const utcnow = () => new DateTime(startedAt.getTime(), false);
  // now() is naive in the machine's zone in Python; slp's machine zone is UTC, so a render does not depend on where it runs.
  const now = (...args: unknown[]) => {
    const { positional, keywords } = splitArgs(args);
    const zone = zoneOf(positional[0] ?? keywords.tz);
    return zone === null ? utcnow() : new DateTime(startedAt.getTime(), false, UTC_ZONE).astimezone(zone);
  };
  const datetime = {
    datetime: classOf((...args) => construct(args, false), {
      now,
      utcnow,
      today: utcnow,
      strptime,
      fromisoformat: (text: unknown) => fromisoformat(text, false),
      combine: (date: unknown) => (date instanceof DateTime ? new DateTime(date.ms, false) : undefined),
    }),
    date: classOf((...args) => construct(args, true), {
      today: () => utcnow().date(),
      fromisoformat: (text: unknown) => fromisoformat(text, true),
    }),
    timedelta,
    timezone: { utc: TIMEZONE_UTC },
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
