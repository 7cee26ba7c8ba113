/** dbt's `modules.datetime` as slp gives it (Python's datetime, "now" being the run's start), and the modules it refuses by name. */
import { describe, expect, test } from "bun:test";
import { dbtModules } from "../../src/sql/dbt-modules.ts";
import { JinjaTemplate } from "../../src/sql/jinja.ts";

const modules = dbtModules(new Date(Date.UTC(2026, 11, 2, 3, 4, 5)));
const render = (source: string) =>
  new JinjaTemplate(source, "m.sql").render({ lookup: (name) => (name === "modules" ? modules : undefined) });

describe("modules.datetime", () => {
  test("constructors, printing and attributes are Python's", () => {
    expect(render("{{ modules.datetime.datetime(2024, 2, 29, 13, 5) }}|{{ modules.datetime.date(2024, 1, 31) }}")).toBe(
      "2024-02-29 13:05:00|2024-01-31",
    );
    expect(
      render("{% set d = modules.datetime.date(2024, 3, 1) %}{{ d.year }}-{{ d.month }}-{{ d.day }} {{ d.weekday() }} {{ d.isoformat() }}"),
    ).toBe("2024-3-1 4 2024-03-01");
    expect(
      render(
        "{{ modules.datetime.timedelta(days=1) }}|{{ modules.datetime.timedelta(hours=1, minutes=30) }}|{{ modules.datetime.timedelta(weeks=2).days }}",
      ),
    ).toBe("1 day, 0:00:00|1:30:00|14");
    expect(() => render("{{ modules.datetime.date(2023, 2, 29) }}")).toThrow("day is out of range for month");
  });

  test("now(), utcnow() and today() are the run's start", () => {
    expect(
      render(
        "{{ modules.datetime.datetime.now() }}|{{ modules.datetime.datetime.utcnow().strftime('%Y%m%d %H:%M') }}|{{ modules.datetime.date.today() }}",
      ),
    ).toBe("2026-12-02 03:04:05|20261202 03:04|2026-12-02");
  });

  test("arithmetic and comparison with timedelta", () => {
    const d = "modules.datetime";
    expect(render(`{{ ${d}.date(2024, 1, 31) + ${d}.timedelta(days=1) }}|{{ ${d}.datetime(2024, 1, 1) - ${d}.timedelta(hours=1) }}`)).toBe(
      "2024-02-01|2023-12-31 23:00:00",
    );
    expect(render(`{{ (${d}.date(2024, 3, 1) - ${d}.date(2024, 2, 1)).days }}|{{ ${d}.date(2024, 1, 1) < ${d}.date(2024, 1, 2) }}`)).toBe(
      "29|True",
    );
    expect(() => render(`{{ ${d}.date(2024, 1, 1) + 1 }}`)).toThrow("unsupported operand type(s) for +");
  });

  test("strptime and fromisoformat read what they are given, and say what they cannot", () => {
    const d = "modules.datetime";
    expect(render(`{{ ${d}.datetime.strptime('2024-05-06', '%Y-%m-%d') }}|{{ ${d}.datetime.fromisoformat('2024-05-06T07:08:09') }}`)).toBe(
      "2024-05-06 00:00:00|2024-05-06 07:08:09",
    );
    expect(() => render(`{{ ${d}.datetime.strptime('06/05/2024', '%Y-%m-%d') }}`)).toThrow("does not match format");
    expect(() => render(`{{ ${d}.datetime.strptime('x', '%Z') }}`)).toThrow("the directive %Z is not one slp reads");
  });
});

describe("aware datetimes, as Python 3.11 has them", () => {
  const d = "modules.datetime";
  test("fromisoformat reads offsets, Z, fractions, bare dates and the basic form; what Python rejects it rejects", () => {
    expect(
      render(
        `{{ ${d}.datetime.fromisoformat('2026-08-15T12:00:00+00:00') }}|{{ ${d}.datetime.fromisoformat('2026-08-15T12:00:00Z').tzinfo }}`,
      ),
    ).toBe("2026-08-15 12:00:00+00:00|UTC");
    expect(
      render(`{% set t = ${d}.datetime.fromisoformat('2026-08-15 12:00:00.123000789-05:30') %}{{ t }}|{{ t.tzinfo }}|{{ t.utcoffset() }}`),
    ).toBe("2026-08-15 12:00:00.123000-05:30|UTC-05:30|-1 day, 18:30:00");
    expect(
      render(
        `{{ ${d}.datetime.fromisoformat('2026-08-15') }}|{{ ${d}.datetime.fromisoformat('20260815T1230') }}|{{ ${d}.date.fromisoformat('20260815') }}`,
      ),
    ).toBe("2026-08-15 00:00:00|2026-08-15 12:30:00|2026-08-15");
    expect(() => render(`{{ ${d}.date.fromisoformat('2026-08-15T12:00') }}`)).toThrow("Invalid isoformat string: '2026-08-15T12:00'");
    expect(() => render(`{{ ${d}.datetime.fromisoformat('2026-08-15T24:00') }}`)).toThrow("Invalid isoformat string");
    expect(() => render(`{{ ${d}.datetime.fromisoformat('2026-08-15T12:00+24:00') }}`)).toThrow("Invalid isoformat string");
    expect(() => render(`{{ ${d}.datetime.fromisoformat('2026-W33-6') }}`)).toThrow("ISO week dates are not read by slp");
    expect(() => render(`{{ ${d}.datetime.fromisoformat('2026-08-15T12:00:00.1234') }}`)).toThrow("slp keeps datetimes to the millisecond");
  });

  test("tzinfo is none when naive; localize, replace, astimezone and now(tz) make aware ones", () => {
    expect(
      render(`{{ ${d}.datetime(2026, 1, 1).tzinfo is none }}|{{ ${d}.datetime(2026, 1, 1, tzinfo=modules.pytz.utc).tzinfo is none }}`),
    ).toBe("True|False");
    expect(
      render(
        `{{ modules.pytz.utc.localize(${d}.datetime(2026, 1, 1)) }}|{{ ${d}.datetime(2026, 1, 1).replace(tzinfo=modules.pytz.utc).isoformat() }}`,
      ),
    ).toBe("2026-01-01 00:00:00+00:00|2026-01-01T00:00:00+00:00");
    expect(() => render(`{{ modules.pytz.utc.localize(${d}.datetime.fromisoformat('2026-01-01T00:00Z')) }}`)).toThrow(
      "Not naive datetime (tzinfo is already set)",
    );
    // timezone.utc (what fromisoformat gives) is not pytz's: it has no localize.
    expect(
      render(
        `{{ ${d}.datetime.fromisoformat('2026-01-01T00:00Z').tzinfo.localize is defined }}|{{ modules.pytz.utc.localize is defined }}`,
      ),
    ).toBe("False|True");
    expect(
      render(
        `{{ ${d}.datetime.fromisoformat('2026-01-01T05:30+05:30').astimezone(modules.pytz.utc) }}|{{ ${d}.datetime.now(modules.pytz.utc) }}`,
      ),
    ).toBe("2026-01-01 00:00:00+00:00|2026-12-02 03:04:05+00:00");
    expect(
      render(
        `{{ ${d}.datetime.fromisoformat('2026-01-01T12:00+01:00').strftime('%H:%M %z %Z') }}|{{ ${d}.datetime(2026, 1, 1).strftime('[%z%Z]') }}`,
      ),
    ).toBe("12:00 +0100 UTC+01:00|[]");
    expect(() => render(`{{ ${d}.datetime(2026, 1, 1).astimezone() }}`)).toThrow("astimezone() without a zone");
  });

  test("aware datetimes compare and subtract by their instant; naive against aware is Python's TypeError", () => {
    const a = `${d}.datetime.fromisoformat('2026-01-01T05:30+05:30')`;
    const b = `${d}.datetime.fromisoformat('2026-01-01T00:00Z')`;
    expect(render(`{{ ${a} == ${b} }}|{{ ${a} < ${b} + ${d}.timedelta(seconds=1) }}|{{ (${b} + ${d}.timedelta(hours=1)) - ${a} }}`)).toBe(
      "True|True|1:00:00",
    );
    expect(render(`{{ ${a}.timestamp() }}|{{ ${d}.datetime(1970, 1, 2).timestamp() }}|{{ ${d}.timedelta(days=1).total_seconds() }}`)).toBe(
      "1767225600.0|86400.0|86400.0",
    );
    expect(render(`{{ ${d}.datetime(2026, 1, 1) == ${b} }}`)).toBe("False");
    expect(() => render(`{{ ${d}.datetime(2026, 1, 1) < ${b} }}`)).toThrow("'<' not supported");
    expect(() => render(`{{ ${d}.datetime(2026, 1, 1) - ${b} }}`)).toThrow("unsupported operand type(s) for -");
  });
});

test("modules.re and itertools are refused by name, and pytz's zones but UTC", () => {
  expect(() => render("{{ modules.re.sub('a', 'b', 'abc') }}")).toThrow("modules.re is not provided by slp");
  expect(render("{{ modules.pytz.timezone('UTC') }}|{{ modules.pytz.utc }}")).toBe("UTC|UTC");
  expect(() => render("{{ modules.pytz.timezone('Europe/Paris') }}")).toThrow(
    "modules.pytz.timezone('Europe/Paris') is not provided by slp",
  );
  expect(() => render("{{ modules.pytz.all_timezones }}")).toThrow("modules.pytz.all_timezones is not provided by slp");
});
