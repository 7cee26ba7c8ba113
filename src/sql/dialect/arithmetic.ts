/**
 * Division (and AVG, and multiplication where the warehouse caps its scale)
 * with each warehouse's documented result type and scale, as DuckDB macros. DuckDB divides every number to a DOUBLE (1/3 = 0.3333333333333333);
 * Snowflake's NUMBER division keeps max(s1, min(s1 + 6, 12)) decimals
 * (0.333333), BigQuery's NUMERIC 9, Redshift's DECIMAL max(4, s1 + p2 - s2 + 1),
 * Postgres's numeric at least 16 significant digits, Spark's decimals
 * max(6, s1 + p2 + 1); Postgres and Redshift divide integers to an integer.
 *
 * Every `a / b` of a translated model becomes
 * `__slp_typed(__slp_div_<dialect>_value(a, b), __slp_div_<dialect>_type(a, b))`:
 * the type macro reads the operands' DuckDB types (`typeof` is folded when the
 * query binds) and names the result type; the value macro computes the exact
 * quotient in 128-bit integers on the operands' unscaled digits, rounded half
 * away from zero to that scale, as JSON text; `from_json` makes it a value of
 * the named type. Each operand is bound once (a lambda over a one-element
 * list), so nested divisions cost no more than their parts. A quotient past
 * 38 digits is DuckDB's overflow error, division by zero the warehouse's error
 * (NULL only for Spark without ANSI mode), an operand that is not a number an
 * error naming its type: never another value.
 */
import type { Warehouse } from "./dialects.ts";
import type { TreeNode } from "./transpiler.ts";

/** A macro slp creates in the database, with the macros its body calls (created first). */
export interface MacroDefinition {
  sql: string;
  needs?: string[];
}

const HELPERS: Record<string, MacroDefinition> = {
  __slp_typed: { sql: "create macro __slp_typed(value, type) as from_json(value, type)" },
  __slp_kind: {
    sql: "create macro __slp_kind(t) as case when t in ('FLOAT', 'DOUBLE') then 'float' when t like 'DECIMAL(%' then 'decimal' when t in ('TINYINT', 'SMALLINT', 'INTEGER', 'BIGINT', 'HUGEINT', 'UTINYINT', 'USMALLINT', 'UINTEGER', 'UBIGINT', '\"NULL\"') then 'integer' else 'other' end",
  },
  __slp_scale: {
    sql: "create macro __slp_scale(t) as case when t like 'DECIMAL(%' then cast(regexp_extract(t, ',(\\d+)\\)', 1) as integer) else 0 end",
  },
  // The digits of a type held as a DECIMAL (an integer type's as Redshift and Spark count them).
  __slp_precision: {
    sql: "create macro __slp_precision(t) as case when t like 'DECIMAL(%' then cast(regexp_extract(t, '\\((\\d+),', 1) as integer) when t in ('TINYINT', 'UTINYINT') then 3 when t in ('SMALLINT', 'USMALLINT') then 5 when t in ('INTEGER', 'UINTEGER') then 10 when t in ('BIGINT', 'UBIGINT') then 19 else 38 end",
  },
  // A fixed-point value's digits without the point: 1.50 (scale 2) -> 150.
  __slp_unscaled: { sql: "create macro __slp_unscaled(x) as cast(replace(cast(x as varchar), '.', '') as hugeint)" },
  __slp_pow10: { sql: "create macro __slp_pow10(k) as cast('1' || repeat('0', cast(k as integer)) as hugeint)" },
  // An unscaled integer and its scale as a JSON string of the decimal: (-5, 2) -> "-0.05".
  // The integer is bound once (y.q): it is a whole rounded quotient, and used three times.
  __slp_decimal_json: {
    sql: "create macro __slp_decimal_json(q, s) as list_transform([struct_pack(q := q, s := s)], lambda y: list_transform([struct_pack(negative := y.q < 0, digits := lpad(cast(abs(y.q) as varchar), cast(greatest(length(cast(abs(y.q) as varchar)), y.s + 1) as integer), '0'), s := y.s)], lambda z: '\"' || case when z.negative then '-' else '' end || case when z.s = 0 then z.digits else left(z.digits, length(z.digits) - z.s) || '.' || right(z.digits, z.s) end || '\"')[1])[1]",
  },
  // n / d in integers, rounded half away from zero; division by zero is an error, NULL stays NULL.
  __slp_round_quotient: {
    sql: "create macro __slp_round_quotient(n, d) as list_transform([struct_pack(n := n, d := d)], lambda w: case when w.d = 0 and w.n is not null then error('Division by zero') else w.n // w.d + case when 2 * abs(w.n % w.d) >= abs(w.d) then sign(w.n) * sign(w.d) else 0 end end)[1]",
  },
  // a / b exactly, to scale s, as a JSON string.
  __slp_exact_quotient: {
    sql: "create macro __slp_exact_quotient(a, b, s) as __slp_decimal_json(__slp_round_quotient(__slp_unscaled(a) * __slp_pow10(s - __slp_scale(typeof(a)) + __slp_scale(typeof(b))), __slp_unscaled(b)), s)",
    needs: ["__slp_decimal_json", "__slp_round_quotient", "__slp_unscaled", "__slp_pow10", "__slp_scale"],
  },
  __slp_float_quotient: {
    sql: "create macro __slp_float_quotient(a, b) as case when cast(b as double) = 0 and a is not null then error('Division by zero') else cast(to_json(cast(a as double) / cast(b as double)) as varchar) end",
  },
  // Integers divided to an integer, truncated toward zero (Postgres, Redshift).
  __slp_integer_quotient: {
    sql: "create macro __slp_integer_quotient(a, b) as case when b = 0 and a is not null then error('Division by zero') else cast(to_json(a // b) as varchar) end",
  },
};

/**
 * Postgres's numeric division scale (select_div_scale in its numeric.c): 16
 * significant digits from the estimated weight of the quotient in base-10000
 * digits, never fewer decimals than either operand shows.
 */
const PG_HELPERS: Record<string, MacroDefinition> = {
  // The decimal exponent of a value's first digit (123.4 -> 2, 0.05 -> -2); NULL for zero.
  __slp_exponent: {
    sql: "create macro __slp_exponent(x) as case when x <> 0 then length(cast(abs(__slp_unscaled(x)) as varchar)) - 1 - __slp_scale(typeof(x)) end",
    needs: ["__slp_unscaled", "__slp_scale"],
  },
  // The weight of the first base-10000 digit, and that digit (0 for zero).
  __slp_nbase_weight: { sql: "create macro __slp_nbase_weight(e) as coalesce(cast(floor(e / 4) as integer), 0)" },
  __slp_nbase_first: {
    sql: "create macro __slp_nbase_first(x, e) as case when e is null then 0 else cast(left(cast(abs(__slp_unscaled(x)) as varchar), e - 4 * __slp_nbase_weight(e) + 1) as integer) end",
    needs: ["__slp_unscaled", "__slp_nbase_weight"],
  },
  __slp_pg_div_scale: {
    sql: "create macro __slp_pg_div_scale(a, b) as list_transform([struct_pack(ea := __slp_exponent(a), eb := __slp_exponent(b))], lambda e: least(1000, greatest(0, __slp_scale(typeof(a)), __slp_scale(typeof(b)), 16 - 4 * (__slp_nbase_weight(e.ea) - __slp_nbase_weight(e.eb) - case when __slp_nbase_first(a, e.ea) <= __slp_nbase_first(b, e.eb) then 1 else 0 end))))[1]",
    needs: ["__slp_exponent", "__slp_nbase_weight", "__slp_nbase_first", "__slp_scale"],
  },
};

/**
 * A cast to Postgres's unconstrained numeric keeps the value exactly, at its own scale: a DECIMAL keeps its digits
 * (held as DECIMAL(38, s)), an integer is DECIMAL(38, 0); past 38 digits DuckDB's cast is an overflow error, never a
 * rounded value. A float's numeric has 15 significant digits (a scale that depends on the value) and a text's the
 * scale it writes: no DuckDB type can be named before the value is read, so either is an error naming the cast.
 */
// Called as `__slp_typed(__slp_pg_numeric_value(x), __slp_pg_numeric_type(x))`: from_json needs its type folded where the query binds.
PG_HELPERS.__slp_pg_numeric_value = { sql: `create macro __slp_pg_numeric_value(x) as '"' || cast(x as varchar) || '"'` };
PG_HELPERS.__slp_pg_numeric_type = {
  sql: `create macro __slp_pg_numeric_type(x) as case __slp_kind(typeof(x)) when 'decimal' then '"DECIMAL(38,' || __slp_scale(typeof(x)) || ')"' when 'integer' then '"DECIMAL(38,0)"' else '"SLP_CANNOT_CAST_' || regexp_replace(typeof(x), '[^A-Za-z0-9]', '_', 'g') || '_TO_POSTGRES_UNCONSTRAINED_NUMERIC"' end`,
  needs: ["__slp_kind", "__slp_scale"],
};

const call = (name: string, args: unknown[]): TreeNode => ({
  function: { name, args, distinct: false, trailing_comments: [], use_bracket_syntax: false, no_parens: false, quoted: false },
});

/** The syntax-tree rule (transpiler.ts rewriteTree) making each Postgres cast to unconstrained numeric slp's typed value, by its type placeholder. */
export function postgresNumericRule(unconstrained: (placeholder: string) => boolean) {
  return (node: TreeNode): TreeNode | undefined => {
    const cast = node.cast as { this: unknown; to?: { data_type?: string; name?: string } } | undefined;
    if (Object.keys(node).length !== 1 || !cast || cast.to?.data_type !== "custom" || !unconstrained(cast.to.name ?? "")) return undefined;
    return call("__slp_typed", [call("__slp_pg_numeric_value", [cast.this]), call("__slp_pg_numeric_type", [cast.this])]);
  };
}

export interface DivisionRule {
  /** The result type as a JSON type string, from the operands' type names. */
  type(ta: string, tb: string): string;
  /** The value as JSON text; `s`, when given, names the result's scale already worked out (see scale). */
  value(a: string, b: string, ta: string, tb: string, s?: string): string;
  /** The exact quotient's scale from the operand type names, when the rule has one. */
  scale?: (ta: string, tb: string) => string;
  needs: string[];
}

const OTHER = (ta: string, tb: string) => `'"SLP_CANNOT_DIVIDE_' || replace(${ta}, '"', '') || '_BY_' || replace(${tb}, '"', '') || '"'`;
const either = (ta: string, tb: string, kind: string) => `(__slp_kind(${ta}) = '${kind}' or __slp_kind(${tb}) = '${kind}')`;
const bothIntegers = (ta: string, tb: string) => `(__slp_kind(${ta}) = 'integer' and __slp_kind(${tb}) = 'integer')`;

/**
 * A rule: FLOAT operands divide as doubles; two integers as `integers` says
 * (a DOUBLE, an integer, or fixed-point like any decimal); otherwise the
 * exact quotient to `scale` (an expression of the operand type names).
 */
export function rule(
  scale: ((ta: string, tb: string) => string) | { refuse: string },
  integers: "float" | "integer" | "fixed",
  exact = "__slp_exact_quotient",
): DivisionRule {
  // A fixed-point result slp has not verified is a type DuckDB does not know, named for the reason.
  const decimalType = (ta: string, tb: string) =>
    typeof scale === "function" ? `'"DECIMAL(38,' || (${scale(ta, tb)}) || ')"'` : `'"${scale.refuse}"'`;
  const decimalValue = (a: string, b: string, ta: string, tb: string, s?: string) =>
    typeof scale === "function" ? `${exact}(${a}, ${b}, ${s ?? scale(ta, tb)})` : "null";
  return {
    type: (ta, tb) => {
      const integer =
        integers === "float"
          ? ` when ${bothIntegers(ta, tb)} then '"DOUBLE"'`
          : integers === "integer"
            ? ` when ${bothIntegers(ta, tb)} then '"BIGINT"'`
            : "";
      return `case when ${either(ta, tb, "other")} then ${OTHER(ta, tb)} when ${either(ta, tb, "float")} then '"DOUBLE"'${integer} else ${decimalType(ta, tb)} end`;
    },
    value: (a, b, ta, tb, s) => {
      const integer =
        integers === "float"
          ? ` when ${bothIntegers(ta, tb)} then __slp_float_quotient(${a}, ${b})`
          : integers === "integer"
            ? ` when ${bothIntegers(ta, tb)} then __slp_integer_quotient(${a}, ${b})`
            : "";
      return `case when ${either(ta, tb, "float")} then __slp_float_quotient(${a}, ${b})${integer} else ${decimalValue(a, b, ta, tb, s)} end`;
    },
    scale: typeof scale === "function" ? scale : undefined,
    needs: ["__slp_kind", "__slp_scale", "__slp_precision", "__slp_float_quotient", "__slp_integer_quotient", exact],
  };
}

/** Postgres's exact quotient: rounded to select_div_scale's decimals, held at the scale the type names (warehouses/postgres.ts); more decimals than that is an error. */
PG_HELPERS.__slp_pg_exact_quotient = {
  sql: `create macro __slp_pg_exact_quotient(a, b, held) as list_transform([__slp_pg_div_scale(a, b)], lambda s: case when s > held then error('slp: this Postgres numeric quotient has ' || s || ' decimals, more than the ' || held || ' slp holds in DuckDB') else __slp_exact_quotient(a, b, s) end)[1]`,
  needs: ["__slp_pg_div_scale", "__slp_exact_quotient"],
};

/**
 * Multiplication where the warehouse caps the product's scale and DuckDB
 * keeps s1 + s2: Snowflake's NUMBER product has min(s1 + s2, max(s1, s2, 12))
 * decimals (.1 * .0000000000001 is 0.0000000000000), BigQuery's NUMERIC 9.
 * The product is exact, rounded half away from zero to that scale.
 */
const PRODUCT_HELPERS: Record<string, MacroDefinition> = {
  // n / 10^k rounded half away from zero (k >= 0), or n * 10^-k.
  __slp_shift: {
    sql: "create macro __slp_shift(n, k) as case when k >= 0 then __slp_round_quotient(n, __slp_pow10(k)) else n * __slp_pow10(-k) end",
    needs: ["__slp_round_quotient", "__slp_pow10"],
  },
  __slp_exact_product: {
    sql: "create macro __slp_exact_product(a, b, s) as __slp_decimal_json(__slp_shift(__slp_unscaled(a) * __slp_unscaled(b), __slp_scale(typeof(a)) + __slp_scale(typeof(b)) - s), s)",
    needs: ["__slp_decimal_json", "__slp_shift", "__slp_unscaled", "__slp_scale"],
  },
};

/** Where the warehouse caps a product's scale: that scale, and whether two integers multiply as DuckDB's integers (`native`) or as fixed-point. */
export interface ProductRule {
  scale: (ta: string, tb: string) => string;
  integers: "fixed" | "native";
}

/** A warehouse's arithmetic: `/`, AVG, `*` where it caps the scale, and what dividing by zero gives. */
export interface Division {
  quotient: DivisionRule;
  /** AVG as the warehouse documents its type: the sum divided by the count (DuckDB's AVG of a DECIMAL is a DOUBLE). */
  average: DivisionRule;
  product?: ProductRule;
  /** `null` for Spark without ANSI mode; an error everywhere else. */
  byZero: "error" | "null";
}

function productMacros(dialect: Warehouse, rule: ProductRule | undefined): [string, MacroDefinition][] {
  if (!rule) return [];
  const names = divisionMacros(dialect, "mul");
  const native = rule.integers === "native";
  const integerType = (ta: string, tb: string) => (native ? ` when ${bothIntegers(ta, tb)} then '"' || typeof(a * b) || '"'` : "");
  const type = `case when ${either("t.ta", "t.tb", "other")} then ${OTHER("t.ta", "t.tb")
    .replace(/DIVIDE/, "MULTIPLY")
    .replace(
      /_BY_/,
      "_AND_",
    )} when ${either("t.ta", "t.tb", "float")} then '"DOUBLE"'${integerType("t.ta", "t.tb")} else '"DECIMAL(38,' || (${rule.scale("t.ta", "t.tb")}) || ')"' end`;
  const value = (x: string, s: string | undefined) => {
    const [ta, tb] = [`typeof(${x}.a)`, `typeof(${x}.b)`];
    return `case when ${either(ta, tb, "float")} then cast(to_json(cast(${x}.a as double) * cast(${x}.b as double)) as varchar)${native ? ` when ${bothIntegers(ta, tb)} then cast(to_json(${x}.a * ${x}.b) as varchar)` : ""} else __slp_exact_product(${x}.a, ${x}.b, ${s ?? rule.scale(ta, tb)}) end`;
  };
  return [
    [
      names.type,
      {
        sql: `create macro ${names.type}(a, b) as list_transform([struct_pack(ta := typeof(a), tb := typeof(b))], lambda t: ${type})[1]`,
        needs: ["__slp_kind", "__slp_scale"],
      },
    ],
    [
      names.value,
      {
        sql: valueMacro(names.value, rule.scale, value),
        needs: ["__slp_kind", "__slp_scale", "__slp_exact_product"],
      },
    ],
  ];
}

/**
 * A value macro: its operands bound once (a one-element list's lambda, `v`),
 * then, when the result has a scale, that scale worked out once from their
 * types in a second such list (`q.s`): written out where it is used, the
 * scale's expression was bound three times per quotient, a third of a
 * division's binding. It never fails (type names in, an integer out), so
 * working it out for a quotient that takes another branch changes nothing.
 */
function valueMacro(
  name: string,
  scale: ((ta: string, tb: string) => string) | undefined,
  body: (operands: string, scale: string | undefined) => string,
): string {
  const inner = scale
    ? `list_transform([struct_pack(a := v.a, b := v.b, s := ${scale("typeof(v.a)", "typeof(v.b)")})], lambda q: ${body("q", "q.s")})[1]`
    : body("v", undefined);
  return `create macro ${name}(a, b) as list_transform([struct_pack(a := a, b := b)], lambda v: ${inner})[1]`;
}

/** The names of the two macros `a / b` (`a * b` for "mul"; for "avg", the sum and the count) becomes in `dialect`. */
export function divisionMacros(dialect: Warehouse, of: "div" | "avg" | "mul" = "div"): { value: string; type: string } {
  return { value: `__slp_${of}_${dialect}_value`, type: `__slp_${of}_${dialect}_type` };
}

/** Every macro division needs in the warehouses given, helpers first. */
export function divisionMacroDefinitions(warehouses: { name: Warehouse; division: Division }[]): Record<string, MacroDefinition> {
  return {
    ...HELPERS,
    ...PG_HELPERS,
    ...PRODUCT_HELPERS,
    ...Object.fromEntries(warehouses.flatMap(({ name, division }) => productMacros(name, division.product))),
    ...Object.fromEntries(
      (["div", "avg"] as const)
        .flatMap((of) => warehouses.map((warehouse) => [of, warehouse] as const))
        .flatMap(([of, { name, division }]) => {
          const { type, value, scale, needs } = of === "div" ? division.quotient : division.average;
          const names = divisionMacros(name, of);
          const guarded = (x: string, s: string | undefined) => {
            const quotient = value(`${x}.a`, `${x}.b`, `typeof(${x}.a)`, `typeof(${x}.b)`, s);
            return division.byZero === "null" ? `case when ${x}.b = 0 then null else ${quotient} end` : quotient;
          };
          return [
            [
              names.type,
              {
                sql: `create macro ${names.type}(a, b) as list_transform([struct_pack(ta := typeof(a), tb := typeof(b))], lambda t: ${type("t.ta", "t.tb")})[1]`,
                needs: ["__slp_kind", "__slp_scale", "__slp_precision"],
              },
            ],
            [names.value, { sql: valueMacro(names.value, scale, guarded), needs }],
          ];
        }),
    ),
  };
}
