/** PostgreSQL: the constructs slp runs, with PostgreSQL's documented examples. */
import { PG, ex, refused, same, translated, type Construct } from "../construct.ts";
import { average } from "../rewrites.ts";
import { common, REDSHIFT_POSTGRES_COMMON } from "./common.ts";

export const POSTGRES: Construct[] = [
  ...common((name) => PG("functions-aggregate")),
  ...REDSHIFT_POSTGRES_COMMON(
    (name) => PG(name === "/" || name === "mod" || name === "round" ? "functions-math" : name === "date_trunc" || name === "date_part" || name === "extract" ? "functions-datetime" : name === "to_char" ? "functions-formatting" : name === "~" || name === "ilike" ? "functions-matching" : name.startsWith("bool") || name === "greatest" || name === "least" ? "functions-aggregate" : "functions-string"),
    // Table 9.4: numeric division keeps at least 16 significant digits.
    [ex("select 5.0 / 2", ["2.5000000000000000"], PG("functions-math")), ex("select 5 / 2", ["2"], PG("functions-math")), ex("select (-5) / 2", ["-2"], PG("functions-math")), ex("select 1.0 / 3", ["0.33333333333333333333"], PG("functions-math"))],
  ),
  same("concat", [ex("select concat('abcde', 2, null, 22)", ["abcde222"], PG("functions-string"))], "skips NULLs, as DuckDB's does"),
  same("concat_ws", [ex("select concat_ws(',', 'abcde', 2, null, 22)", ["abcde,2,22"], PG("functions-string"))]),
  translated("string_agg", [ex("select string_agg(x, ',' order by x) from (values ('b'), ('a')) as t(x)", ["a,b"], PG("functions-aggregate"))]),
  translated("array_agg", [ex("select array_length(array_agg(x), 1) from (values (1), (2)) as t(x)", ["2"], PG("functions-aggregate"))]),
  translated("array_length", [ex("select array_length(array[1, 2, 3], 1)", ["3"], PG("functions-array"))]),
  same("[]", [ex("select (array[1, 2, 3])[1]", ["1"], PG("arrays"))], "1-based, as DuckDB's"),
  refused("~*", "the transpiler writes it as REGEXP_ILIKE, which DuckDB cannot parse: write regexp_like(x, p, 'i') or lower() with ~"),
  refused("!~*", "the transpiler writes it as REGEXP_ILIKE, which DuckDB cannot parse"),
  translated("!~", [ex("select 'thomas' !~ 't.*max'", ["true"], PG("functions-matching"))]),
  translated("regexp_replace", [ex("select regexp_replace('Thomas', '.[mN]a.', 'M')", ["ThM"], PG("functions-matching")), ex("select regexp_replace('abab', 'b', 'x', 'g')", ["axax"], PG("functions-matching"))], "the first match unless the g flag is given"),
  translated("make_date", [ex("select make_date(2013, 7, 15)", ["2013-07-15"], PG("functions-datetime"))]),
  translated("to_date", [ex("select to_date('05 Dec 2000', 'DD Mon YYYY')", ["2000-12-05"], PG("functions-formatting"))]),
  translated("div", [ex("select div(9, 4)", ["2"], PG("functions-math"))]),
  refused("age", "Postgres's age() counts months and days differently from DuckDB's"),
  refused("generate_series", "a set-returning function in the select list has no faithful DuckDB form in slp"),
  average("postgres", "integers and numerics average to numeric (16 significant digits); floats to double precision", [
    ex("select avg(x) from (values (1), (2), (2)) as t(x)", ["1.6666666666666667"], PG("functions-aggregate")),
    ex("select avg(x) from (values (1), (2)) as t(x)", ["1.5000000000000000"], PG("functions-aggregate")),
  ]),
];
