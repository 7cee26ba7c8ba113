/**
 * A model's compiled SQL, written for a warehouse, as SQL DuckDB runs with
 * the warehouse's meaning. The transpiler does the translation; slp first
 * reads every function call, cast and operator the SQL uses and looks it up
 * in its table of verified constructs (constructs.ts): a construct the table
 * does not vouch for, or refuses, is an `untranslatable` refusal naming it;
 * one the transpiler gets wrong is rewritten first; types in casts are
 * slp's own mapping (types.ts). Translations are cached by content hash
 * (translator.ts), so a warm run never loads this module or the transpiler.
 */
import { constructsOf, type Call } from "./constructs.ts";
import type { Dialect } from "./dialects.ts";
import { mapType, structFieldNames } from "./types.ts";
import { divisionMacros, postgresNumericRule } from "./arithmetic.ts";
import { LIKE_PATTERN_MACRO, likeRewrite } from "./like.ts";
import { POSIX_MACROS, posixRewrite } from "./posix-regex.ts";
import { subscriptOf } from "./nested.ts";
import { queryRewrite } from "./query-rewrites.ts";
import { bigquerySubscript, postgresJsonRule, redshiftPartiqlRule } from "./json.ts";
import { duckdbLiterals, lex, type LexedSql, transpilerString } from "./lexer.ts";
import { regenerate, rewriteTree, tokenize, toDuckdb, wrapOperators, type OperatorWrap, type Token, type TreeNode } from "./transpiler.ts";
import { givesVariantMacro, VARIANT_TREE_MACROS, variantRewrite, type VariantCasts, type VariantKind } from "./variant.ts";
import type { TranslationResult, Untranslatable } from "./translation.ts";
import { warehouse } from "./warehouses/index.ts";

export type { Translation, TranslationResult, Untranslatable } from "./translation.ts";

/** Words that take a parenthesis without being a function call. */
const SYNTAX_WORDS = new Set(
  (
    "all and any as between by case cross distinct else end except exists filter for from full group having in inner intersect interval " +
    "is join lateral left like ilike rlike limit minus natural not on or order outer over partition qualify recursive right rows range select " +
    "some then union using values when where window with within"
  ).split(" "),
);

/** Why a cast to Redshift's SUPER is refused: it makes a SUPER scalar of the value, never parses text. */
const SUPER_CAST =
  "a cast to SUPER makes a SUPER scalar of the value (text stays a string), which slp does not hold; json_parse(text) reads JSON";

/** Functions whose argument list ends in `AS <type>`. */
const CASTS = new Set(["cast", "try_cast", "safe_cast"]);

export async function translateSql(sql: string, dialect: Exclude<Dialect, "duckdb">): Promise<TranslationResult> {
  // The warehouse's reading of its literals and comments first (lexer.ts): the rest sees each literal's value in the transpiler's form.
  const lexed = lex(sql, dialect);
  if (!lexed.ok) return refused(lexed.construct, lexed.why, lexed.line);
  const result = await translateLexed(lexed.value, dialect);
  if (result.ok || result.untranslatable.line === null) return result;
  return { ok: false, untranslatable: { ...result.untranslatable, line: lexed.value.sourceLine(result.untranslatable.line) } };
}

async function translateLexed(lexed: LexedSql, dialect: Exclude<Dialect, "duckdb">): Promise<TranslationResult> {
  const { sql } = lexed;
  const tokenized = await tokenize(sql, dialect);
  if (!tokenized.ok) return refused(`${dialect} SQL`, `the transpiler cannot read it: ${tokenized.error}`, tokenized.line);
  const tokens = tokenized.value;
  const misread = misreadLiteral(lexed, tokens);
  if (misread) return { ok: false, untranslatable: misread };
  const keptInDuckdb = once(() => literalsWrittenBack(lexed, dialect));
  const source = Array.from(sql);
  const table = constructsOf(dialect);
  const closing = matchingParens(tokens);
  const opening = new Map([...closing].map(([open, close]) => [close, open]));
  const edits = new Map<number, Edit>();
  const macros = new Set<string>();
  const types: string[] = [];
  // Type placeholders that stand for Postgres's jsonb, whose values slp holds as jsonb's own text (json.ts).
  const jsonbTypes = new Set<string>();
  const variantCasts: VariantCasts = { text: new Set(), semi: new Map() };
  // Snowflake SQL with a path (v:a), a subscript or a cast variant.ts rewrites goes through the syntax tree.
  let variantSyntax = false;
  const offsets: { element: string; offset: string }[] = [];

  // Postgres casts to unconstrained numeric, by type placeholder: slp's typed value on the syntax tree (arithmetic.ts).
  const unconstrainedNumeric = new Set<string>();

  const typeEdit = (from: number, to: number): Untranslatable | null => {
    const written = source.slice((tokens[from] as Token).start, (tokens[to - 1] as Token).end).join("");
    if (dialect === "postgres" && /^\s*(numeric|decimal)\s*$/i.test(written)) {
      const placeholder = `__slp_type_${types.length}`;
      unconstrainedNumeric.add(placeholder);
      // Not a DuckDB type: a cast the tree rewrite did not reach is an error naming it, never another type.
      types.push("SLP_UNREWRITTEN_POSTGRES_NUMERIC");
      edits.set(from, { end: to, render: () => placeholder });
      return null;
    }
    const mapped = mapType(written, dialect);
    if (!mapped.ok) return { construct: written, why: mapped.why, line: (tokens[from] as Token).line };
    // Postgres's casts to json and jsonb parse text (jsonb is then held as its own text: json.ts); Snowflake's are
    // rewritten on the syntax tree (variant.ts); others are not verified.
    if (mapped.jsonText && dialect !== "postgres" && dialect !== "snowflake")
      return {
        construct: written,
        why: dialect === "redshift" ? SUPER_CAST : "a cast to a semi-structured type: slp has not verified it against DuckDB",
        line: (tokens[from] as Token).line,
      };
    // Snowflake: a cast to text or to VARIANT, OBJECT or ARRAY is rewritten on the syntax tree (variant.ts).
    if (dialect === "snowflake" && mapped.jsonText)
      variantCasts.semi.set(types.length, written.trim().toLowerCase().split(/\s/)[0] as VariantKind);
    if (dialect === "snowflake" && mapped.type === "VARCHAR") variantCasts.text.add(types.length);
    const placeholder = `__slp_type_${types.length}`;
    if (dialect === "postgres" && /^\s*jsonb\s*$/i.test(written)) jsonbTypes.add(placeholder);
    types.push(mapped.type);
    edits.set(from, { end: to, render: () => placeholder });
    return null;
  };

  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i] as Token;
    const next = tokens[i + 1];
    const previous = tokens[i - 1];
    // `from (select ...) union all select ...`: the transpiler reads the set operation into the unnamed derived table
    // (from ((select ...) union all select ...)), which changes what the outer select computes; an alias keeps it out.
    if (token.type === "L_PAREN" && /^(from|join)$/i.test(previous?.text ?? "") && previous?.type !== "QUOTED_IDENTIFIER") {
      const close = closing.get(i);
      // BigQuery's BY NAME modes come first: `) full union all by name`.
      const mode = close !== undefined && /^(full|left|inner)$/i.test(tokens[close + 1]?.text ?? "") ? 1 : 0;
      const after = close === undefined ? undefined : tokens[close + 1 + mode];
      if (close !== undefined && /^(union|intersect|except|minus|outer)$/i.test(after?.text ?? "") && after?.type !== "QUOTED_IDENTIFIER")
        edits.set(close, { end: close + 1, render: () => `) as __slp_derived_${close}` });
    }
    // `x::type`
    if (token.type === "D_COLON") {
      const entry = table.get("::");
      if (!entry || entry.how === "refused")
        return refused("::", entry?.why ?? `slp has not verified :: in ${dialect} against DuckDB: write cast(x as type)`, token.line);
      const end = typeEnd(tokens, i + 1);
      if (end === i + 1) return refused("::", "no type follows it", token.line);
      const problem = typeEdit(i + 1, end);
      if (problem) return { ok: false, untranslatable: problem };
      i = end - 1;
      continue;
    }
    // `interval -5 day` as `interval (-5) day`: the transpiler wrote some of these as INTERVAL -5 DAY, which DuckDB cannot parse.
    if (token.type === "INTERVAL" && next?.type === "DASH" && tokens[i + 2]?.type === "NUMBER") {
      const amount = (tokens[i + 2] as Token).text;
      edits.set(i + 1, { end: i + 3, render: () => `(-${amount})` });
      i += 2;
      continue;
    }
    // `interval days_supply day` (a column's count) as `interval (days_supply) day`: DuckDB's parser takes a literal or a parenthesized expression there.
    if (token.type === "INTERVAL" && next && isWord(next) && next.type !== "STRING" && !SYNTAX_WORDS.has(next.text.toLowerCase())) {
      let end = i + 2;
      while (tokens[end]?.type === "DOT" && tokens[end + 1] && isWord(tokens[end + 1] as Token)) end += 2;
      if (
        tokens[end] &&
        /^(microsecond|millisecond|second|minute|hour|day|week|month|quarter|year)s?$/i.test((tokens[end] as Token).text)
      ) {
        const count = source.slice(next.start, (tokens[end - 1] as Token).end).join("");
        edits.set(i + 1, { end, render: () => `(${count})` });
        i = end - 1;
        continue;
      }
    }
    // BigQuery's typed constructors STRUCT<...>(values) and ARRAY<...>[values] take slp's mapping of the type (the transpiler's has NUMERIC
    // without its scale): a struct's values named by the type's fields (DuckDB casts a struct to a struct by name), the array cast.
    if (
      dialect === "bigquery" &&
      /^(struct|array)$/i.test(token.text) &&
      next?.text.startsWith("<") &&
      token.type !== "QUOTED_IDENTIFIER"
    ) {
      const typeStop = angleEnd(tokens, i + 1);
      const open = tokens[typeStop];
      const close = closing.get(typeStop);
      const struct = token.text.toLowerCase() === "struct";
      if (close !== undefined && open?.type === (struct ? "L_PAREN" : "L_BRACKET")) {
        const written = source.slice(token.start, (tokens[typeStop - 1] as Token).end).join("");
        const problem = typeEdit(i, typeStop);
        if (problem) return { ok: false, untranslatable: problem };
        const placeholder = `__slp_type_${types.length - 1}`;
        if (!struct) edits.set(i, { end: close + 1, render: () => `cast(${emit(typeStop, close + 1)} as ${placeholder})` });
        else {
          const fields = structFieldNames(written, dialect) ?? [];
          const values = argumentRanges(tokens, typeStop, close);
          if (fields.length !== values.length || values.some(([from, to]) => lastTopLevel(tokens, from, to, "as") >= 0))
            return refused(written, "a typed STRUCT takes one value, without AS, for each field of its type", token.line);
          const named = () => values.map(([from, to], k) => `${emit(from, to)} as \`${fields[k]}\``).join(", ");
          edits.set(i, { end: close + 1, render: () => `cast(struct(${named()}) as ${placeholder})` });
        }
        i = typeStop - 1;
        continue;
      }
    }
    // BigQuery's JSON literal `JSON '...'`: the text parsed, held as BigQuery prints a JSON value (json.ts).
    if (
      dialect === "bigquery" &&
      /^json$/i.test(token.text) &&
      token.type !== "QUOTED_IDENTIFIER" &&
      next?.type === "STRING" &&
      previous?.type !== "DOT"
    ) {
      const literal = source.slice(next.start, next.end).join("");
      edits.set(i, { end: i + 2, render: () => `__slp_as_json(__slp_jsonf_print(${literal}, 'bigquery'))` });
      macros.add("__slp_as_json");
      i += 1;
      continue;
    }
    // BigQuery reads a number with a point or an exponent as FLOAT64 (DuckDB as DECIMAL): 1.0 / 3 is 0.3333333333333333 there.
    if (dialect === "bigquery" && token.type === "NUMBER" && /[.eE]/.test(token.text)) {
      edits.set(i, { end: i + 1, render: () => `cast(${token.text} as float64)` });
      continue;
    }
    // `from values (1, 'a'), (2, 'b')` (Snowflake, Databricks) as DuckDB's `from (values ...)`, its columns named column1, column2, ... as the warehouse names them.
    if (token.text.toLowerCase() === "values" && next?.type === "L_PAREN" && /^(from|join)$/i.test(previous?.text ?? "")) {
      let end = closing.get(i + 1);
      if (end === undefined) continue;
      while (tokens[end + 1]?.type === "COMMA" && tokens[end + 2]?.type === "L_PAREN") end = closing.get(end + 2) ?? end;
      const width = argumentRanges(tokens, i + 1, closing.get(i + 1) as number).length;
      const columns = `(${Array.from({ length: width }, (_, n) => `column${n + 1}`).join(", ")})`;
      // An alias without a column list keeps the warehouse's column names.
      const as = tokens[end + 1]?.text.toLowerCase() === "as" ? 1 : 0;
      const alias = tokens[end + 1 + as];
      const aliased = alias !== undefined && isWord(alias) && (as === 1 || !SYNTAX_WORDS.has(alias.text.toLowerCase()));
      const stop = end + 1;
      const values = () => `(values ${emit(i + 1, stop)})`;
      if (!aliased) edits.set(i, { end: stop, render: () => `${values()} as __slp_values${columns}` });
      else if (tokens[end + 2 + as]?.type === "L_PAREN") edits.set(i, { end: stop, render: values });
      else edits.set(i, { end: end + 2 + as, render: () => `${values()} as ${alias.text}${columns}` });
      continue;
    }
    const syntax = syntaxConstruct(tokens, i);
    // BigQuery's `UNNEST(array) AS x WITH OFFSET [AS o]`: the UNNEST keeps a placeholder alias, and after the transpiler the
    // placeholder's relation becomes a subquery of (element, 0-based position) rows (withOffsets).
    if (syntax === "with offset" && dialect === "bigquery") {
      const offset = unnestWithOffset(tokens, i, opening);
      if (offset === null)
        return refused("with offset", "slp runs UNNEST(array) AS x WITH OFFSET [AS o] only (the element named by an alias)", token.line);
      const placeholder = `__slp_offset_${offsets.length}`;
      offsets.push({ element: offset.element, offset: offset.offset });
      edits.set(offset.from, { end: offset.to, render: () => `as ${placeholder}` });
      i = offset.to - 1;
      continue;
    }
    if (syntax !== null) {
      if (dialect === "snowflake" && (syntax === ":" || syntax === "[]")) {
        variantSyntax = true;
        // The transpiler reads a path's quoted key without its quotes: one with other characters than a bare key's would read as another path.
        const key = syntax === ":" ? tokens[i + 1] : undefined;
        if (key?.type === "QUOTED_IDENTIFIER" && !/^[A-Za-z0-9_$]+$/.test(key.text.replace(/^"|"$/g, "")))
          return refused(
            ":",
            `the quoted key ${key.text} in a VARIANT path: slp reads keys of letters, digits, _ and $ (write GET(v, '...'))`,
            key.line,
          );
      }
      const entry = table.get(syntax);
      if (!entry) return refused(syntax, `slp has not verified ${syntax} in ${dialect} against DuckDB`, token.line);
      if (entry.how === "refused") return refused(syntax, entry.why ?? "slp cannot run it with the warehouse's meaning", token.line);
      const close = entry.subscript === "zero-based" ? closing.get(i) : undefined;
      const only = close === i + 2 ? (tokens[i + 1] as Token) : null;
      for (const macro of entry.macros ?? []) macros.add(macro);
      // A key (m['k']) is not an index; an index moves from 0-based to DuckDB's 1-based.
      if (close !== undefined && close > i + 1 && !(only && only.type === "STRING")) {
        // Databricks and Spark: `x[i]` is an array's index or a map's key, which only the value's type tells (a macro reads it).
        const start = dialect === "databricks" || dialect === "spark" ? operandStart(tokens, i, opening) : -1;
        if (start < 0) edits.set(i, { end: close + 1, render: () => `[(${emit(i + 1, close)}) + 1]` });
        else {
          const inner = edits.get(start);
          const operand = () =>
            inner && inner.end <= i
              ? inner.render() +
                (inner.end < i
                  ? source.slice((tokens[inner.end - 1] as Token).end, (tokens[inner.end] as Token).start).join("") + emit(inner.end, i)
                  : "")
              : emit(start, i);
          const subscript = subscriptOf(dialect === "databricks");
          edits.set(start, { end: close + 1, render: () => subscript(operand(), emit(i + 1, close)) });
        }
      }
      continue;
    }
    if (next?.type !== "L_PAREN" || !isWord(token) || (SYNTAX_WORDS.has(token.text.toLowerCase()) && token.type !== "QUOTED_IDENTIFIER"))
      continue;
    if (previous && (previous.type === "AS" || previous.text.toLowerCase() === "as") && token.type !== "QUOTED_IDENTIFIER") continue;
    // `UNION ALL BY NAME (SELECT ...)`, `UNPIVOT INCLUDE NULLS (...)`: an operation's mode, not a call.
    if (/^(by name|include nulls|exclude nulls)$/i.test(`${previous?.text} ${token.text}`) && token.type !== "QUOTED_IDENTIFIER") continue;
    const close = closing.get(i + 1);
    if (close === undefined) continue;
    // `name (a, b) as (`: a CTE's column list, not a call.
    if (tokens[close + 1]?.text.toLowerCase() === "as" && tokens[close + 2]?.type === "L_PAREN") continue;
    const qualified = previous?.type === "DOT" && tokens[i - 2] ? `${(tokens[i - 2] as Token).text}.${token.text}` : null;
    const name = (qualified ?? token.text).toLowerCase();
    const entry = table.get(name);
    if (!entry) {
      return refused(
        `${qualified ?? token.text}()`,
        qualified
          ? "slp cannot run a user-defined or package-qualified function"
          : `slp has not verified ${name}() in ${dialect} against DuckDB`,
        token.line,
      );
    }
    if (entry.how === "refused")
      return refused(`${token.text}()`, entry.why ?? "slp cannot run it with the warehouse's meaning", token.line);
    if (entry.within) {
      const position = entry.withinArgument ?? 0;
      const enclosing = enclosingCall(tokens, i);
      const inside = enclosing !== null && enclosing.argument === position && entry.within.includes(enclosing.name);
      // The whole argument, nothing around it.
      const whole =
        /^(,|\()$/.test(previous?.text ?? "") &&
        /^(,|\))$/.test(tokens[close + 1]?.text ?? "") &&
        (position > 0 || tokens[close + 1]?.type === "COMMA");
      if (!inside || !whole)
        return refused(
          `${token.text}()`,
          `slp runs ${name}() only as the ${position === 0 ? "first" : "second"} argument of ${entry.within.join("() or ")}()`,
          token.line,
        );
    }
    const args = argumentRanges(tokens, i + 1, close);
    let castType: string | null = null;
    if (CASTS.has(name)) {
      const last = args[args.length - 1];
      const as = last ? lastTopLevel(tokens, last[0], last[1], "as") : -1;
      if (as < 0) return refused(`${token.text}()`, "slp reads a cast as cast(value as type)", token.line);
      // A NULL cast to a type DuckDB has no faithful one for (a fixture's `cast(null as array)`) holds no value to
      // misread: an untyped NULL, which takes the type of what it meets (a union's other rows, a function's argument).
      const written = source.slice((tokens[as + 1] as Token).start, (tokens[close - 1] as Token).end).join("");
      const target = mapType(written, dialect);
      if (as === i + 3 && (tokens[i + 2] as Token).text.toLowerCase() === "null" && (!target.ok || target.jsonText)) {
        edits.set(i, { end: close + 1, render: () => "null" });
        i = close;
        continue;
      }
      const problem = typeEdit(as + 1, (last as [number, number])[1]);
      if (problem) return { ok: false, untranslatable: problem };
      castType = types[types.length - 1] as string;
    }
    for (const macro of entry.macros ?? []) macros.add(macro);
    if (entry.rewrite) {
      const rewrite = entry.rewrite;
      const after = tokens[close + 1]?.text.toLowerCase() ?? null;
      // A rewrite that takes the window replaces `over (...)` (or `over name`) too, and a `ignore nulls` / `respect nulls` before it.
      const nulls = (after === "ignore" || after === "respect") && tokens[close + 2]?.text.toLowerCase() === "nulls" ? 2 : 0;
      // `filter (where ...)` after an aggregate: a rewrite that takes the window takes it too (before its `over`).
      const filtered =
        entry.window && nulls === 0 && after === "filter" && tokens[close + 2]?.type === "L_PAREN"
          ? (closing.get(close + 2) ?? close + 1) - close
          : 0;
      const over = close + 1 + nulls + filtered;
      const windowEnd =
        entry.window && tokens[over]?.text.toLowerCase() === "over"
          ? tokens[over + 1]?.type === "L_PAREN"
            ? (closing.get(over + 1) ?? over) + 1
            : over + 2
          : filtered > 0
            ? over
            : close + 1;
      const text = (from: number, to: number) => source.slice((tokens[from] as Token).start, (tokens[to - 1] as Token).end).join("");
      const before = i >= 2 ? `${(tokens[i - 2] as Token).text} ${(tokens[i - 1] as Token).text}`.toLowerCase() : null;
      const raw = args.map(([from, to]) => text(from, to));
      const call = (): Call => ({
        name,
        args: args.map(([from, to]) => emit(from, to)),
        literal: (index: number) => literalOf(tokens, args[index]),
        next: after,
        before,
        window: windowEnd > close + 1 ? emit(close + 1, windowEnd) : "",
        castType,
        written: raw,
        sql,
        mapType: (written: string) => mapType(written, dialect),
        quote: (value: string) => transpilerString(value, dialect),
      });
      // Refusals a rewrite raises are found now, before anything is emitted.
      const probe = rewrite({
        name,
        args: raw,
        literal: (index) => literalOf(tokens, args[index]),
        next: after,
        before,
        window: windowEnd > close + 1 ? text(close + 1, windowEnd) : "",
        castType,
        written: raw,
        sql,
        mapType: (written: string) => mapType(written, dialect),
        quote: (value: string) => transpilerString(value, dialect),
      });
      if (typeof probe !== "string") return refused(`${token.text}()`, probe.refuse, token.line);
      // Spark names an unaliased `cast(column as T)` in a select list after the column (its analyzer's ResolveAliases);
      // the rewritten call would be named after its own text in DuckDB.
      const column = (dialect === "databricks" || dialect === "spark") && CASTS.has(name) ? castColumn(tokens, i, close, args) : null;
      const named = column === null ? null : source.slice(column.start, column.end).join("");
      edits.set(i, { end: windowEnd, render: () => (named === null ? (rewrite(call()) as string) : `${rewrite(call())} as ${named}`) });
    }
  }

  const emit = (from: number, to: number): string => {
    if (from >= to) return "";
    let out = "";
    let cursor = (tokens[from] as Token).start;
    for (let i = from; i < to; ) {
      const token = tokens[i] as Token;
      const edit = edits.get(i);
      if (edit && edit.end <= to) {
        out += source.slice(cursor, token.start).join("") + edit.render();
        cursor = (tokens[edit.end - 1] as Token).end;
        i = edit.end;
        continue;
      }
      i++;
    }
    return out + source.slice(cursor, (tokens[to - 1] as Token).end).join("");
  };

  let rewritten = tokens.length === 0 ? sql : emit(0, tokens.length);
  // A literal the transpiler would not keep when it writes the SQL back in the dialect (a quote in Redshift) goes through
  // those rewrites as a placeholder of plain letters, and the rewrites read its value through `literalValue`.
  const carried = await carryLiterals(rewritten, lexed, dialect);
  if ("untranslatable" in carried) return { ok: false, untranslatable: carried.untranslatable };
  rewritten = carried.sql;
  const literalValue = (value: string) => carried.values.get(value) ?? value;
  // Division keeps the warehouse's result type and scale (arithmetic.ts), in every `/` the SQL has after the rewrites.
  // Division (and, where the warehouse caps its scale, multiplication) keeps the warehouse's result type and scale (arithmetic.ts).
  const multiplies = warehouse(dialect).division.product !== undefined;
  if (rewritten.includes("/") || (multiplies && rewritten.includes("*"))) {
    const wrap = (of: "div" | "mul"): OperatorWrap => {
      const names = divisionMacros(dialect, of);
      return { wrapper: "__slp_typed", first: names.value, second: names.type };
    };
    const wraps = { div: wrap("div"), ...(multiplies ? { mul: wrap("mul") } : {}) };
    const wrapped = await wrapOperators(rewritten, dialect, wraps);
    if (!wrapped.ok) return refused(`${dialect} SQL`, `the transpiler cannot read it: ${wrapped.error}`, wrapped.line);
    if (wrapped.value.wrapped > 0) {
      for (const used of Object.values(wraps))
        if (wrapped.value.sql.toLowerCase().includes(used.first))
          for (const macro of [used.wrapper, used.first, used.second]) macros.add(macro);
      rewritten = wrapped.value.sql;
    }
  }
  // On the syntax tree: LIKE and ILIKE keep the warehouse's escape character, LIKE ANY / ALL become their ORs / ANDs
  // (like.ts); BigQuery's LEFT JOIN UNNEST without ON and FULL UNION BY NAME take DuckDB's form (query-rewrites.ts).
  // BigQuery's subscripts take slp's macro (json.ts: a JSON value's index is 0-based in DuckDB, an array's 1-based).
  const bigquery = dialect === "bigquery" && (/\b(unnest|name|corresponding|pivot|unpivot)\b/i.test(rewritten) || rewritten.includes("["));
  // Postgres's JSON operators and casts to jsonb (json.ts).
  const postgresJson = dialect === "postgres" && (/->|#>|\?|@>|<@|\|\|/.test(rewritten) || jsonbTypes.size > 0);
  // Redshift's PartiQL navigation and unnesting, refused by name (json.ts).
  const partiql = dialect === "redshift" && /[\w"]\s*\.\s*[\w"]|\|\|/.test(rewritten);
  // Postgres and Redshift regular expressions (~, ~*, SIMILAR TO) as RE2 patterns or refused (posix-regex.ts).
  const posix =
    (dialect === "postgres" || dialect === "redshift") && /~|similar/i.test(rewritten) ? posixRewrite(dialect, literalValue) : null;
  // A VARIANT the SQL makes goes through the tree too, where slp refuses one converted implicitly (variant.ts).
  const variant =
    dialect === "snowflake" &&
    (variantSyntax || variantCasts.text.size > 0 || variantCasts.semi.size > 0 || [...macros].some(givesVariantMacro));
  if (/like/i.test(rewritten) || bigquery || postgresJson || partiql || posix || variant || unconstrainedNumeric.size > 0) {
    const json = postgresJson ? postgresJsonRule((name) => jsonbTypes.has(name.toLowerCase())) : partiql ? redshiftPartiqlRule() : null;
    // The first rule that answers for a node rewrites it (or refuses).
    const rules = [
      posix,
      likeRewrite(dialect, literalValue),
      bigquery ? queryRewrite : null,
      bigquery ? bigquerySubscript : null,
      json,
      variant ? variantRewrite(variantCasts) : null,
      unconstrainedNumeric.size > 0 ? postgresNumericRule((name) => unconstrainedNumeric.has(name.toLowerCase())) : null,
    ].filter((rule) => rule !== null);
    const rule = (node: TreeNode) => {
      for (const each of rules) {
        const answer = each(node);
        if (answer !== undefined) return answer;
      }
      return undefined;
    };
    const tree = await rewriteTree(rewritten, dialect, rule);
    if (!tree.ok) {
      // A tree rule's refusal reads `CONSTRUCT: why`.
      if ("refuse" in tree) return refused((tree.refuse.split(":")[0] as string).toLowerCase(), tree.refuse, null);
      return refused(`${dialect} SQL`, `the transpiler cannot read it: ${tree.error}`, tree.line);
    }
    rewritten = tree.value.sql;
    for (const macro of [
      LIKE_PATTERN_MACRO,
      ...POSIX_MACROS,
      "__slp_as_json",
      "__slp_bq_index",
      "__slp_pg_concat",
      "__slp_typed",
      "__slp_pg_numeric_value",
      "__slp_pg_numeric_type",
    ])
      if (rewritten.toLowerCase().includes(macro)) macros.add(macro);
    if (variant) for (const macro of VARIANT_TREE_MACROS) if (rewritten.toLowerCase().includes(macro)) macros.add(macro);
  }
  rewritten = rewritten.replace(CARRIED, (placeholder) => transpilerString(literalValue(placeholder.slice(1, -1)), dialect));
  if (/__slp_literal_/i.test(rewritten))
    return refused("string literal", "the transpiler rewrote a literal slp carried through its rewrites", null);
  const kept = await keptInDuckdb();
  if (kept) return { ok: false, untranslatable: kept };
  const translated = await toDuckdb(rewritten, dialect);
  if (!translated.ok) return refused(`${dialect} SQL`, `the transpiler cannot translate it: ${translated.error}`, translated.line);
  let out = translated.value;
  if (dialect === "bigquery") {
    const alias = unnestTableAlias(out);
    if (alias !== null)
      return refused(
        "unnest",
        `the transpiler left UNNEST(...) AS ${alias} a table alias in DuckDB (inside ARRAY(...) within a call), so ${alias} would be a row, not the element`,
        null,
      );
  }
  if (offsets.length > 0) {
    const rewritten = withOffsets(out, offsets);
    if (rewritten === null) return refused("with offset", "the transpiler wrote UNNEST ... WITH OFFSET in a form slp does not read", null);
    out = rewritten;
  }
  // Placeholders are slp's own identifiers; the transpiler may change their case, nothing else.
  out = out.replace(/__slp_type_(\d+)\b/gi, (_all, index: string) => types[Number(index)] as string);
  out = expandRaw(out);
  return { ok: true, translation: { sql: out, macros: [...macros].sort() } };
}

/** The first literal the transpiler reads otherwise than the warehouse (lexer.ts wrote each in the form it should read), else null. */
function misreadLiteral(lexed: LexedSql, tokens: Token[]): Untranslatable | null {
  const strings = tokens.filter((token) => token.type.endsWith("STRING"));
  const k = lexed.literals.findIndex((literal, n) => strings[n]?.text !== literal.value);
  if (k < 0 && strings.length === lexed.literals.length) return null;
  const at = lexed.literals[k] ?? lexed.literals[lexed.literals.length - 1];
  const token = strings[k < 0 ? lexed.literals.length : k];
  return {
    construct: "string literal",
    why: `the transpiler reads a string literal otherwise than the warehouse (${JSON.stringify(at?.value ?? token?.text ?? "")})`,
    line: token?.line ?? null,
  };
}

/** Literals that only letters, digits and plain punctuation write alike everywhere. */
const PLAIN = /^[\x20-\x21\x23-\x26\x28-\x5b\x5d-\x7e]*$/;

/** A placeholder carryLiterals writes for a literal, as the transpiler writes it back. */
const CARRIED = /'__slp_literal_\d+'/g;

/**
 * `sql` with each literal the transpiler would not keep when it writes the SQL
 * back in `dialect` (each value written by the transpiler and read again)
 * replaced by a placeholder literal; `values` gives each placeholder's value.
 */
async function carryLiterals(
  sql: string,
  lexed: LexedSql,
  dialect: Exclude<Dialect, "duckdb">,
): Promise<{ sql: string; values: Map<string, string> } | { untranslatable: Untranslatable }> {
  const values = new Map<string, string>();
  const risky = [...new Set(lexed.literals.map((literal) => literal.value).filter((value) => !PLAIN.test(value)))];
  const lost = new Set<string>();
  for (const value of risky) {
    const back = await regenerate(`select ${transpilerString(value, dialect)}`, dialect);
    const reread = back.ok ? await tokenize(back.value, dialect) : null;
    const strings = reread?.ok ? reread.value.filter((token) => token.type.endsWith("STRING")) : [];
    if (strings.length !== 1 || strings[0]?.text !== value) lost.add(value);
  }
  if (lost.size === 0) return { sql, values };
  const tokenized = await tokenize(sql, dialect);
  if (!tokenized.ok)
    return {
      untranslatable: { construct: `${dialect} SQL`, why: `the transpiler cannot read it: ${tokenized.error}`, line: tokenized.line },
    };
  const source = Array.from(sql);
  let out = "";
  let cursor = 0;
  for (const token of tokenized.value) {
    if (!token.type.endsWith("STRING") || !lost.has(token.text)) continue;
    const placeholder = `__slp_literal_${values.size}`;
    values.set(placeholder, token.text);
    out += `${source.slice(cursor, token.start).join("")}'${placeholder}'`;
    cursor = token.end;
  }
  return { sql: out + source.slice(cursor).join(""), values };
}

/** The first literal whose value the transpiler would not keep when it writes the SQL as DuckDB (each value written and read again), else null. */
async function literalsWrittenBack(lexed: LexedSql, dialect: Exclude<Dialect, "duckdb">): Promise<Untranslatable | null> {
  const risky = lexed.literals.filter((literal) => !PLAIN.test(literal.value));
  if (risky.length === 0) return null;
  const duckdb = await toDuckdb(`select ${risky.map((literal) => transpilerString(literal.value, dialect)).join(", ")}`, dialect);
  const read = duckdb.ok ? duckdbLiterals(duckdb.value) : null;
  const literal = risky.find((each, k) => read?.[k] !== each.value);
  return literal
    ? {
        construct: "string literal",
        why: `the transpiler does not keep the value ${JSON.stringify(literal.value)} when it writes DuckDB SQL`,
        line: literal.line,
      }
    : null;
}

function once<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined;
  return () => {
    made ??= make();
    return made;
  };
}

interface Edit {
  /** Token index after the edited range. */
  end: number;
  render(): string;
}

function refused(construct: string, why: string, line: number | null): TranslationResult {
  return { ok: false, untranslatable: { construct, why, line } };
}

function isWord(token: Token): boolean {
  return token.type === "QUOTED_IDENTIFIER" || /^[A-Za-z_][A-Za-z0-9_$]*$/.test(token.text);
}

/** Token index of each `(` / `[` -> its closing partner. */
function matchingParens(tokens: Token[]): Map<number, number> {
  const pairs = new Map<number, number>();
  const open: number[] = [];
  tokens.forEach((token, i) => {
    if (token.type === "L_PAREN" || token.type === "L_BRACKET") open.push(i);
    else if (token.type === "R_PAREN" || token.type === "R_BRACKET") {
      const from = open.pop();
      if (from !== undefined) pairs.set(from, i);
    }
  });
  return pairs;
}

/** The token ranges [from, to) of a call's arguments, split at top-level commas. */
function argumentRanges(tokens: Token[], open: number, close: number): [number, number][] {
  const ranges: [number, number][] = [];
  let depth = 0;
  let start = open + 1;
  for (let i = open + 1; i < close; i++) {
    const type = (tokens[i] as Token).type;
    if (type === "L_PAREN" || type === "L_BRACKET") depth++;
    else if (type === "R_PAREN" || type === "R_BRACKET") depth--;
    else if (type === "COMMA" && depth === 0) {
      ranges.push([start, i]);
      start = i + 1;
    }
  }
  if (start < close) ranges.push([start, close]);
  return ranges;
}

function lastTopLevel(tokens: Token[], from: number, to: number, word: string): number {
  let depth = 0;
  let found = -1;
  for (let i = from; i < to; i++) {
    const token = tokens[i] as Token;
    if (token.type === "L_PAREN" || token.type === "L_BRACKET") depth++;
    else if (token.type === "R_PAREN" || token.type === "R_BRACKET") depth--;
    else if (depth === 0 && token.text.toLowerCase() === word) found = i;
  }
  return found;
}

/** Clauses that end a select list, read backwards from an item. */
const SELECT_LIST_ENDS = new Set(
  "from where group having order qualify window on join limit union intersect except minus values set by using".split(" "),
);

/**
 * The column (its token) an unaliased select item `cast(column as T)` (or
 * `cast(t.column as T)`) is named after; null for any other cast (an alias of its own,
 * an expression inside it, a cast within an expression).
 */
function castColumn(tokens: Token[], at: number, close: number, args: [number, number][]): Token | null {
  const before = tokens[at - 1]?.text.toLowerCase();
  const after = tokens[close + 1];
  if (!before || !["select", "distinct", "all", ","].includes(before)) return null;
  if (after && !/^(,|\)|;|from|where|group|having|order|qualify|window|limit|union|intersect|except|minus)$/i.test(after.text)) return null;
  const [from, to] = args[0] ?? [0, 0];
  const as = lastTopLevel(tokens, from, to, "as");
  // The operand: one name, or names joined by dots.
  const operand = tokens.slice(from, as);
  if (operand.length === 0 || operand.length % 2 === 0) return null;
  if (!operand.every((token, n) => (n % 2 === 0 ? isWord(token) && token.type !== "STRING" : token.type === "DOT"))) return null;
  const column = operand[operand.length - 1] as Token;
  if (column.type !== "QUOTED_IDENTIFIER" && SYNTAX_WORDS.has(column.text.toLowerCase())) return null;
  // In a select list: back to its `select` without leaving the parentheses or crossing a clause.
  let depth = 0;
  for (let i = at - 1; i >= 0; i--) {
    const token = tokens[i] as Token;
    if (token.type === "R_PAREN" || token.type === "R_BRACKET") depth++;
    else if (token.type === "L_PAREN" || token.type === "L_BRACKET") {
      if (--depth < 0) return null;
    } else if (depth === 0 && token.type !== "QUOTED_IDENTIFIER" && token.type !== "STRING") {
      const word = token.text.toLowerCase();
      if (word === "select") return column;
      if (SELECT_LIST_ENDS.has(word)) return null;
    }
  }
  return null;
}

/**
 * The token where the operand of the subscript at `bracket` starts: a name
 * (`t.col`), a call (`f(x)`), a parenthesized expression, or one of these
 * already subscripted (`a[1][2]`); -1 for anything else.
 */
function operandStart(tokens: Token[], bracket: number, opening: Map<number, number>): number {
  let j = bracket - 1;
  for (;;) {
    const token = tokens[j];
    if (!token) return -1;
    if (token.type === "R_PAREN" || token.type === "R_BRACKET") {
      const open = opening.get(j);
      if (open === undefined) return -1;
      j = open;
      const name = tokens[j - 1];
      // A call's name, or a subscript's operand, comes before the opening.
      if (token.type === "R_BRACKET" || (name && isWord(name) && name.type !== "STRING" && !SYNTAX_WORDS.has(name.text.toLowerCase()))) {
        j -= 1;
        continue;
      }
    } else if (
      !isWord(token) ||
      token.type === "STRING" ||
      (token.type !== "QUOTED_IDENTIFIER" && SYNTAX_WORDS.has(token.text.toLowerCase()))
    )
      return -1;
    if (tokens[j - 1]?.type === "DOT") {
      j -= 2;
      continue;
    }
    return j;
  }
}

/** The call whose argument list holds token `at`: its name (lower case) and which argument (from 0); null outside a call. */
function enclosingCall(tokens: Token[], at: number): { name: string; argument: number } | null {
  let depth = 0;
  let argument = 0;
  for (let i = at - 1; i >= 0; i--) {
    const type = (tokens[i] as Token).type;
    if (type === "R_PAREN" || type === "R_BRACKET") depth++;
    else if (type === "L_PAREN" || type === "L_BRACKET") {
      if (depth === 0) {
        const name = tokens[i - 1];
        return type === "L_PAREN" && name && isWord(name) ? { name: name.text.toLowerCase(), argument } : null;
      }
      depth--;
    } else if (type === "COMMA" && depth === 0) argument++;
  }
  return null;
}

/** An argument that is one string or number literal, as its value; else null. */
function literalOf(tokens: Token[], range: [number, number] | undefined): string | null {
  if (!range || range[1] - range[0] !== 1) return null;
  const token = tokens[range[0]] as Token;
  return token.type.includes("STRING") || token.type === "NUMBER" ? token.text : null;
}

/** Words that continue a type name: `double precision`, `timestamp with time zone`, `character varying`. */
const TYPE_CONTINUATIONS = new Set(["precision", "varying", "with", "without", "time", "zone", "local"]);

/** The token index after the type starting at `from` (after `::`). */
function typeEnd(tokens: Token[], from: number): number {
  let i = from;
  if (!tokens[i] || !isWord(tokens[i] as Token)) return from;
  i++;
  while (tokens[i] && isWord(tokens[i] as Token) && TYPE_CONTINUATIONS.has((tokens[i] as Token).text.toLowerCase())) i++;
  if (tokens[i]?.type === "L_PAREN") {
    let depth = 0;
    for (; i < tokens.length; i++) {
      const type = (tokens[i] as Token).type;
      if (type === "L_PAREN") depth++;
      else if (type === "R_PAREN" && --depth === 0) {
        i++;
        break;
      }
    }
  }
  if (tokens[i]?.text === "<") {
    let depth = 0;
    for (; i < tokens.length; i++) {
      const text = (tokens[i] as Token).text;
      depth += [...text].filter((c) => c === "<").length - [...text].filter((c) => c === ">").length;
      if (depth <= 0 && /[>]/.test(text)) {
        i++;
        break;
      }
    }
  }
  while (tokens[i]?.type === "L_BRACKET" && tokens[i + 1]?.type === "R_BRACKET") i += 2;
  return i;
}

/** The token index after the `<...>` of a type starting at `from` (`<`; the tokenizer may read `>>` as one token). */
function angleEnd(tokens: Token[], from: number): number {
  let depth = 0;
  for (let i = from; i < tokens.length; i++) {
    const text = (tokens[i] as Token).text;
    depth += [...text].filter((c) => c === "<").length - [...text].filter((c) => c === ">").length;
    if (depth <= 0) return i + 1;
  }
  return tokens.length;
}

/** The syntax construct a token starts (an operator, a clause), by the name the table knows it by; else null. */
function syntaxConstruct(tokens: Token[], i: number): string | null {
  const token = tokens[i] as Token;
  const lower = token.text.toLowerCase();
  const previous = tokens[i - 1];
  switch (token.type) {
    case "D_PIPE":
      return "||";
    case "SLASH":
      return "/";
    case "L_BRACKET":
      // A subscript follows an expression; an array literal follows an operator, a comma or a parenthesis.
      return previous &&
        (isWord(previous) || previous.type === "R_PAREN" || previous.type === "R_BRACKET") &&
        !SYNTAX_WORDS.has(previous.text.toLowerCase())
        ? "[]"
        : null;
    default:
      break;
  }
  if (
    ["~", "~*", "!~", "!~*", "@>", "<@", "->", "->>", "#>", "#>>", "?", "?|", "?&", "%"].includes(token.text) &&
    token.type !== "STRING" &&
    token.type !== "QUOTED_IDENTIFIER"
  )
    return token.text;
  if (token.type === "COLON" && previous && isWord(previous) && tokens[i + 1] && isWord(tokens[i + 1] as Token)) return ":";
  if (token.type === "STRING" || token.type === "QUOTED_IDENTIFIER") return null;
  if (lower === "qualify" || lower === "ilike" || lower === "rlike" || lower === "pivot" || lower === "unpivot" || lower === "connect")
    return lower;
  if (lower === "lateral") return tokens[i + 1]?.text.toLowerCase() === "view" ? "lateral view" : "lateral";
  if (lower === "with" && tokens[i + 1]?.text.toLowerCase() === "offset") return "with offset";
  if ((lower === "except" || lower === "exclude" || lower === "replace" || lower === "rename") && previous?.text === "*")
    return `* ${lower}`;
  return null;
}

/** Words that end an UNNEST's offset alias position (`with offset where ...`): a clause, a join, a set operation. */
const AFTER_OFFSET = new Set(
  "where group having order qualify window limit join left right full inner cross on using union intersect except select from".split(" "),
);

/**
 * `UNNEST(...) [AS] x WITH OFFSET [[AS] o]` around the `with` at `at`: the
 * token range from the element's alias to the end of the offset's, the two
 * names (the offset `offset` when it has no alias); null for another shape.
 */
function unnestWithOffset(
  tokens: Token[],
  at: number,
  opening: Map<number, number>,
): { from: number; to: number; element: string; offset: string } | null {
  const alias = tokens[at - 1];
  if (!alias || !isWord(alias) || alias.type === "STRING" || alias.type === "L_PAREN") return null;
  const as = tokens[at - 2]?.text.toLowerCase() === "as" ? 1 : 0;
  const close = at - 2 - as;
  const open = opening.get(close);
  if (tokens[close]?.type !== "R_PAREN" || open === undefined || tokens[open - 1]?.text.toLowerCase() !== "unnest") return null;
  let to = at + 2;
  let offset = "offset";
  const next = tokens[to];
  const named = next?.text.toLowerCase() === "as" ? tokens[to + 1] : next;
  if (
    named &&
    isWord(named) &&
    named.type !== "STRING" &&
    (next?.text.toLowerCase() === "as" || !AFTER_OFFSET.has(named.text.toLowerCase()))
  ) {
    offset = named.text;
    to = tokens.indexOf(named) + 1;
  }
  const bare = (name: string) => name.replace(/^[`"]|[`"]$/g, "");
  return { from: at - 1 - as, to, element: bare(alias.text), offset: bare(offset) };
}

/**
 * The transpiler's `UNNEST(a) AS t(__slp_offset_k)` as a subquery of one row
 * per element: the element under its alias and its 0-based position under the
 * offset's (DuckDB's WITH ORDINALITY counts from 1); null when a placeholder is missing.
 */
function withOffsets(sql: string, offsets: { element: string; offset: string }[]): string | null {
  let out = sql;
  for (let k = 0; k < offsets.length; k++) {
    const { element, offset } = offsets[k] as { element: string; offset: string };
    const placeholder = new RegExp(`\\)\\s+AS\\s+(\\w+)\\s*\\(\\s*__slp_offset_${k}\\s*\\)`, "i");
    const match = placeholder.exec(out);
    if (!match) return null;
    // Back from the `)` to the UNNEST( it closes.
    let depth = 0;
    let start = -1;
    for (let i = match.index; i >= 0; i--) {
      if (out[i] === ")") depth++;
      else if (out[i] === "(" && --depth === 0) {
        start = i;
        break;
      }
    }
    const keyword = start < 0 ? null : /UNNEST\s*$/i.exec(out.slice(0, start));
    if (!keyword) return null;
    const array = out.slice(start + 1, match.index);
    const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;
    const subquery = `(SELECT __slp_e.v AS ${quote(element)}, __slp_e.p AS ${quote(offset)} FROM UNNEST(LIST_TRANSFORM(${array}, lambda __slp_v, __slp_i: {'v': __slp_v, 'p': __slp_i - 1})) AS __slp_u(__slp_e)) AS ${match[1]}`;
    out = out.slice(0, keyword.index) + subquery + out.slice(match.index + match[0].length);
  }
  return out;
}

/** The alias of an UNNEST(...) the DuckDB SQL names as a table (`AS x`, not `AS t(x)`), where BigQuery names the element; else null. */
function unnestTableAlias(written: string): string | null {
  // String literals masked (DuckDB doubles a quote inside one), so only SQL is read.
  const sql = written.replace(/'(?:[^']|'')*'/g, (literal) => " ".repeat(literal.length));
  const pattern = /\bUNNEST\s*\(/gi;
  for (let match = pattern.exec(sql); match !== null; match = pattern.exec(sql)) {
    let depth = 0;
    let i = match.index + match[0].length - 1;
    for (; i < sql.length; i++) {
      if (sql[i] === "(") depth++;
      else if (sql[i] === ")" && --depth === 0) break;
    }
    const alias = /^\s+AS\s+("[^"]+"|\w+)(\s*\()?/i.exec(sql.slice(i + 1));
    if (alias && !alias[2]) return alias[1] as string;
  }
  return null;
}

/**
 * Every `__slp_raw(value, 'template')` in DuckDB's SQL as the template with
 * the (translated) values in place of `$slp_arg_N$` (format-models.ts): a DuckDB
 * expression the warehouse's parser could not have carried. Innermost first,
 * so a raw call in another's value is written out too.
 */
function expandRaw(sql: string): string {
  const pattern = /__slp_raw\(/gi;
  let out = sql;
  for (let guard = 0; guard < 1000; guard++) {
    const matches = [...out.matchAll(pattern)];
    const last = matches[matches.length - 1];
    if (!last) return out;
    const open = (last.index as number) + last[0].length - 1;
    // The arguments, split at top-level commas; the last is the template's string literal.
    const args: string[] = [];
    let depth = 0;
    let from = open + 1;
    let i = open + 1;
    for (; i < out.length; i++) {
      const char = out[i];
      if (char === "'") {
        i++;
        while (i < out.length && !(out[i] === "'" && out[i + 1] !== "'")) i += out[i] === "'" ? 2 : 1;
      } else if (char === '"') i = out.indexOf('"', i + 1);
      else if (char === "(" || char === "[") depth++;
      else if (char === "]") depth--;
      else if (char === ")" && depth-- === 0) break;
      else if (char === "," && depth === 0) {
        args.push(out.slice(from, i));
        from = i + 1;
      }
    }
    args.push(out.slice(from, i));
    const literal = /^\s*'((?:[^']|'')*)'\s*$/.exec(args.pop() ?? "");
    if (!literal) throw new Error("slp's raw DuckDB expression lost its template in translation");
    const template = (literal[1] as string).replace(/''/g, "'");
    const expanded = template.replace(/\$slp_arg_(\d+)\$/g, (_all, index: string) => (args[Number(index)] ?? "").trim());
    out = out.slice(0, last.index) + expanded + out.slice(i + 1);
  }
  return out;
}
