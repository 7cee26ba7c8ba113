/**
 * Sensitive-column lineage: what one SELECT's columns carry (sql/column-lineage.ts),
 * and S6 through the real CLI: its answer cached by file content, and
 * recomputed when a model, a yml or an env var a render read changes.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { columnLineage, type StatementLineage } from "../src/sql/column-lineage.ts";
import { runCli, runMain } from "./support/cli.ts";
import { copyToTemp, tempDir } from "./support/temp.ts";

const FIXTURES = join(import.meta.dir, "fixtures", "S6");

function lineage(sql: string, warehouse = "duckdb"): StatementLineage {
  const read = columnLineage(sql, warehouse);
  if ("error" in read) throw new Error(read.error);
  return read;
}

/** Each output column with its origins as `relation.column`, sorted. */
function carried(sql: string, warehouse = "duckdb"): Record<string, string[]> {
  return Object.fromEntries(
    lineage(sql, warehouse).columns.map((column) => [column.name, column.origins.map((o) => `${o.relation}.${o.column}`).sort()]),
  );
}

describe("what a column carries", () => {
  test("aliases, scalar functions, case results, casts and concatenation keep identity; a hash too", () => {
    expect(
      carried(
        `select email as contact, lower(trim(email)) as l, coalesce(email, 'x') || '!' as c, cast(email as text) as t,
         email::varchar as v, md5(email) as h, sha256(email) as s, hash(email) as hh, substring(email, 1, 3) as sub,
         case when plan = 'pro' then email else 'none' end as k from "u"`,
      ),
    ).toEqual({
      contact: ["u.email"],
      l: ["u.email"],
      c: ["u.email"],
      t: ["u.email"],
      v: ["u.email"],
      h: ["u.email"],
      s: ["u.email"],
      hh: ["u.email"],
      sub: ["u.email"],
      k: ["u.email"],
    });
  });

  test("counts and boolean tests remove it; min, max, string_agg, array_agg and any_value do not", () => {
    expect(
      carried(
        `select count(email) as a, count(distinct email) as b, email is null as c, email like '%@x.com' as d,
         email = 'x' as e, email in ('x') as f, not (email is null) as g, regexp_matches(email, 'x') as h,
         min(email) as i, max(email) as j, string_agg(email, ',') as k, array_agg(email) as l, any_value(email) as m,
         case when email like '%x' then 1 else 0 end as n, row_number() over (partition by email order by email) as o
         from "u" group by email`,
      ),
    ).toEqual({
      a: [],
      b: [],
      c: [],
      d: [],
      e: [],
      f: [],
      g: [],
      h: [],
      i: ["u.email"],
      j: ["u.email"],
      k: ["u.email"],
      l: ["u.email"],
      m: ["u.email"],
      n: [],
      o: [],
    });
  });

  test("through CTEs, subqueries and joins, by qualifier and by name", () => {
    expect(
      carried(
        `with c as (select id, email as e from "users"), o as (select id, total from "orders")
         select c.id, x.e as contact, o.total from (select * from c) as x join c using (id) left join o on o.id = c.id`,
      ),
    ).toEqual({ id: ["users.id"], contact: ["users.email"], total: ["orders.total"] });
  });

  test("each branch of a union, by position when both are known, by name under a star", () => {
    expect(carried(`select a as x from "t" union all select b from "u"`)).toEqual({ x: ["t.a", "u.b"] });
    const starred = lineage(`select * from "t" union all select * from "u"`);
    expect(starred.passthrough.map((p) => p.relation)).toEqual(["t", "u"]);
  });

  test("select * and t.* pass every column of their input on, named as the star that carried them", () => {
    const read = lineage(`with c as (select email as contact from "u") select c.*, o.* from c, "orders" as o`);
    expect(read.columns).toEqual([
      { name: "contact", origins: [{ relation: "u", column: "email" }], line: 1, star: { text: "select c.*", line: 1 } },
    ]);
    expect(read.passthrough).toEqual([{ relation: "orders", star: { text: "select o.*", line: 1 } }]);
  });

  test("a scalar subquery carries its column; a filter, a join condition and a group by carry nothing", () => {
    expect(
      carried(`select id, (select max(email) from "u" where u.id = o.id) as last_email from "orders" as o where o.email is not null`),
    ).toEqual({ id: ["orders.id"], last_email: ["u.email"] });
  });

  test("an unnested array carries what the array does; a bare date part in a function is a word, not a column", () => {
    expect(carried("select address, date_trunc(c.signed_up, month) as m from `c` as c, unnest(c.emails) as address", "bigquery")).toEqual({
      address: ["c.emails"],
      m: ["c.signed_up"],
    });
  });

  test("a relation's alias as a value is its whole row, and `s.*` over such a column passes the row's columns on (dbt_utils.deduplicate)", () => {
    const sql = `with staff as (
      select unique.* from (
        select array_agg(original order by updated_at desc limit 1)[offset(0)] unique
        from (select id, personal_email as email from \`people\`) original group by id
      )
    ) select staff.id, staff.email as reach from staff`;
    expect(carried(sql, "bigquery")).toEqual({ id: ["people.id"], reach: ["people.personal_email"] });
    expect(lineage(sql, "bigquery").unresolved).toEqual([]);
  });

  test("what it cannot follow is named with its line: a recursive CTE, a column no relation has", () => {
    expect(lineage("with recursive r as (select 1 as n)\nselect n from r").unresolved).toEqual([
      { construct: "a recursive CTE (with recursive)", line: 1 },
    ]);
    expect(lineage("select id,\n  nope from (select 1 as id) s").unresolved).toEqual([
      { construct: "column nope, which no relation of its query has", line: 2 },
    ]);
    expect(columnLineage("select * exclude (email) from t", "duckdb")).toMatchObject({
      error: expect.stringContaining("the SQL parser cannot read it"),
    });
  });
});

describe("S6 through the CLI", () => {
  test("the real CLI blocks an alias of a sensitive column with its lineage path", () => {
    const result = runCli(["check", "--format", "json"], join(FIXTURES, "fires", "alias_in_mart"), { SLP_NO_CACHE: "1" });
    expect(result.exitCode).toBe(1);
    const envelope = JSON.parse(result.stdout) as { findings: { rule: string; file: string; line: number; message: string }[] };
    expect(envelope.findings).toMatchObject([
      {
        rule: "S6",
        file: "models/marts/dim_contacts.sql",
        line: 4,
        message: expect.stringContaining("dim_contacts.contact ← stg_customers.email ← source shop.customers.email"),
      },
    ]);
  });

  test("a warm check writes no cache file: the answer sits in the parse cache, and the stamps S6 looks up after check's save are kept", async () => {
    using cache = tempDir("slp-lineage-cache-");
    using project = copyToTemp(join(FIXTURES, "silent", "listed_in_spec"));
    // A stamp vouches only for a file that had been still for two seconds when it was hashed (file-ids.ts).
    await Bun.sleep(2100);
    const env = { SLP_CACHE_DIR: cache.path };
    const written = () =>
      readdirSync(cache.path).map((name) => [name, statSync(join(cache.path, name)).mtimeMs, readFileSync(join(cache.path, name), "utf8")]);
    const cold = await runMain(["check"], project.path, env);
    expect(cold.exitCode).toBe(0);
    expect(readdirSync(cache.path).map((name) => name.replace(/-.*/, ""))).toEqual(["yaml"]);
    const afterCold = written();
    for (let run = 0; run < 3; run++) {
      expect(await runMain(["check"], project.path, env)).toEqual(cold);
      expect(written()).toEqual(afterCold);
    }
  });

  test("a cached answer holds until a model changes, and an env var a render read is part of it", async () => {
    using cache = tempDir("slp-lineage-cache-");
    using project = copyToTemp(join(FIXTURES, "silent", "listed_in_spec"));
    const env = { SLP_CACHE_DIR: cache.path, DBT_EXTRA_COLUMN: "country" };
    const mart = join(project.path, "models", "marts", "dim_contacts.sql");
    // The mart's extra column comes from an env var: the rendered SQL, and so the lineage, depend on it.
    writeFileSync(
      mart,
      "select customer_id, email as contact, {{ env_var('DBT_EXTRA_COLUMN') }} as extra from {{ ref('stg_customers') }}\n",
    );
    const first = await runMain(["check"], project.path, env);
    expect(first.exitCode).toBe(0);
    expect(await runMain(["check"], project.path, env)).toEqual(first);
    // The same files, another value read by env_var(): the cached answer is not reused.
    const email = await runMain(["check"], project.path, { ...env, DBT_EXTRA_COLUMN: "email" });
    expect(email.exitCode).toBe(1);
    // The column's name came from the environment, so the path shows the variable, never its value.
    expect(email.stdout).toContain(
      "column extra carries a sensitive value (dim_contacts.extra ← stg_customers.<env_var('DBT_EXTRA_COLUMN')> ← source shop.customers.<env_var('DBT_EXTRA_COLUMN')>)",
    );
    expect(await runMain(["check"], project.path, env)).toEqual(first);
    // An edited model is read again.
    writeFileSync(mart, `${readFileSync(mart, "utf8").trimEnd().replace(" from", ", lower(email) as reach from")}\n`);
    const edited = await runMain(["check"], project.path, env);
    expect(edited.exitCode).toBe(1);
    expect(edited.stdout).toContain("column reach carries a sensitive value (dim_contacts.reach ← stg_customers.email");
  });
});
