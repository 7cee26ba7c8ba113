/** Amazon Redshift: the constructs slp runs, with Redshift's documented examples. */
import { RS, ex, refused, translated, type Construct } from "../construct.ts";
import { average, parenthesized, strictConcat } from "../rewrites.ts";
import { common, REDSHIFT_POSTGRES_COMMON } from "./common.ts";

export const REDSHIFT: Construct[] = [
  ...common((name) => RS(`r_${name.toUpperCase()}`)),
  ...REDSHIFT_POSTGRES_COMMON(
    (name) => RS(name === "/" || name === "||" || name === "::" || name === "~" || name === "ilike" ? "r_operators" : `r_${name.toUpperCase()}`),
    // DECIMAL(8,2) / DECIMAL(8,2) is DECIMAL(17,9): scale max(4, s1 + p2 - s2 + 1).
    [ex("select cast(10 as decimal(8,2)) / cast(3 as decimal(8,2))", ["3.333333333"], RS("r_numeric_computations201")), ex("select cast(2 as decimal(8,2)) / cast(3 as decimal(8,2))", ["0.666666667"], RS("r_numeric_computations201"))],
  ),
  translated("nvl", [ex("select nvl(null, 'x')", ["x"], RS("r_NVL_function"))]),
  translated("nvl2", [ex("select nvl2(null, 1, 2)", ["2"], RS("r_NVL2"))]),
  translated("decode", [ex("select decode(2, 1, 'one', 2, 'two', 'other')", ["two"], RS("r_DECODE_expression"))]),
  translated("len", [ex("select len('français')", ["8"], RS("r_LEN"))]),
  translated("charindex", [ex("select charindex('dog', 'fish')", ["0"], RS("r_CHARINDEX")), ex("select charindex('fish', 'dogfish')", ["4"], RS("r_CHARINDEX"))]),
  { name: "dateadd", how: "corrected", note: "a negative amount is parenthesized (the transpiler's INTERVAL -1 DAY is rejected by DuckDB)", rewrite: parenthesized(1), examples: [ex("select dateadd(month, 1, '2008-01-31'::date)", ["2008-02-29"], RS("r_DATEADD_function")), ex("select dateadd(day, 30, '2008-02-28'::date)", ["2008-03-29"], RS("r_DATEADD_function")), ex("select dateadd(day, -1, '2008-03-01'::date)", ["2008-02-29"], RS("r_DATEADD_function"))] },
  translated("datediff", [ex("select datediff(day, '2008-01-01'::date, '2008-03-05'::date)", ["64"], RS("r_DATEDIFF_function")), ex("select datediff(month, '2008-01-31'::date, '2008-02-01'::date)", ["1"], RS("r_DATEDIFF_function"))]),
  {
    name: "add_months",
    how: "corrected",
    note: "month-end stays month-end (the transpiler lost it)",
    rewrite: (call) => (call.args.length === 2 ? `__slp_add_months_eom(${call.args[0]}, ${call.args[1]})` : { refuse: "add_months takes a date and a number of months" }),
    macros: ["__slp_add_months_eom"],
    examples: [ex("select add_months('2008-03-31'::date, 1)", ["2008-04-30 00:00:00"], RS("r_ADD_MONTHS")), ex("select add_months('2008-02-29'::date, 1)", ["2008-03-31 00:00:00"], RS("r_ADD_MONTHS")), ex("select add_months('2008-01-15'::date, 1)", ["2008-02-15 00:00:00"], RS("r_ADD_MONTHS"))],
  },
  translated("last_day", [ex("select last_day('2008-02-05'::date)", ["2008-02-29"], RS("r_LAST_DAY"))]),
  translated("listagg", [ex("select listagg(x, ',') within group (order by x) from (select 'b' as x union all select 'a') as t", ["a,b"], RS("r_LISTAGG"))]),
  {
    name: "concat",
    how: "corrected",
    note: "NULL when either argument is NULL",
    rewrite: strictConcat,
    examples: [ex("select concat('December 25, ', '2008')", ["December 25, 2008"], RS("r_CONCAT")), ex("select concat('a', null)", [null], RS("r_CONCAT"))],
  },
  translated("getdate", [ex("select getdate() is not null", ["true"], RS("r_GETDATE"))]),
  refused("median", "Redshift's MEDIAN of an even count differs by type from DuckDB's"),
  average("redshift", "integers average to a BIGINT (truncated); the average of a DECIMAL is refused", [
    ex("select avg(x) from (select 1 as x union all select 2) as t", ["1"], RS("r_AVG")),
    ex("select avg(x) from (select 1.5::float8 as x union all select 2) as t", ["1.75"], RS("r_AVG")),
  ]),
];
