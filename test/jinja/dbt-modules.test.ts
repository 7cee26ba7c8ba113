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

test("modules.re and itertools are refused by name, and pytz's zones but UTC", () => {
  expect(() => render("{{ modules.re.sub('a', 'b', 'abc') }}")).toThrow("modules.re is not provided by slp");
  expect(render("{{ modules.pytz.timezone('UTC') }}|{{ modules.pytz.utc }}")).toBe("UTC|UTC");
  expect(() => render("{{ modules.pytz.timezone('Europe/Paris') }}")).toThrow(
    "modules.pytz.timezone('Europe/Paris') is not provided by slp",
  );
  expect(() => render("{{ modules.pytz.all_timezones }}")).toThrow("modules.pytz.all_timezones is not provided by slp");
});
