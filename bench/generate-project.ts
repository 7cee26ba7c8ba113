/**
 * Writes a synthetic dbt project: N marts models (spec, pre-registration,
 * data tests, two unit tests each, one naming each known edge) and N staging
 * models, one yml and one sql per model. Deterministic for a given N.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export interface ProjectShape {
  marts: number;
  staging: number;
}

export function martsYml(i: number): string {
  const model = `fct_model_${i}`;
  return `version: 2
models:
  - name: ${model}
    description: "Orders of segment ${i}, one row per order."
    meta:
      spec:
        grain: "one row per order"
        primary_key: [order_id]
        tier: standard
        metrics:
          gross_revenue: "sum of order_total before discounts and taxes, in currency units"
        known_edges:
          - "status='cancelled' → row excluded"
          - "value in cents → divide by 100"
        sensitive_columns: [customer_email]
      pre_registration:
        type: data_change
        reason: "include status='partially_shipped', previously excluded by mistake"
        row_delta: {min: 0, max: 12000}
        removed_pks: {max: 0}
        altered_columns: [gross_revenue]
        metrics:
          gross_revenue: {delta_pct: {min: 0.0, max: 0.8}}
    columns:
      - name: order_id
        data_tests: [unique, not_null]
      - name: customer_email
        meta: {sensitive: true}
      - name: status
        data_tests:
          - accepted_values:
              arguments:
                values: [shipped, partially_shipped, pending]
      - name: gross_revenue
        data_tests: [not_null]
unit_tests:
  - name: ${model}_cancelled_excluded
    model: ${model}
    config: {meta: {edge: "status='cancelled' → row excluded"}}
    given:
      - input: ref('stg_model_${i}')
        rows:
          - {order_id: 1, customer_email: a@example.com, status: cancelled, order_total_cents: 1000}
          - {order_id: 2, customer_email: b@example.com, status: shipped, order_total_cents: 2000}
    expect:
      rows:
        - {order_id: 2, gross_revenue: 20.0}
  - name: ${model}_cents_to_units
    model: ${model}
    config: {meta: {edge: "value in cents → divide by 100"}}
    given:
      - input: ref('stg_model_${i}')
        rows:
          - {order_id: 1, customer_email: a@example.com, status: shipped, order_total_cents: 150}
    expect:
      rows:
        - {order_id: 1, gross_revenue: 1.5}
`;
}

export function martsSql(i: number): string {
  return `select
    order_id,
    customer_email,
    status,
    order_total_cents / 100.0 as gross_revenue
from {{ ref('stg_model_${i}') }}
where status != 'cancelled'
`;
}

export function stagingYml(i: number): string {
  return `version: 2
models:
  - name: stg_model_${i}
    description: "Raw orders of segment ${i}, renamed."
    columns:
      - name: order_id
        data_type: integer
        data_tests: [unique, not_null]
      - name: customer_email
        data_type: varchar
        meta: {sensitive: true}
      - name: status
        data_type: varchar
      - name: order_total_cents
        data_type: integer
`;
}

export function stagingSql(i: number): string {
  return `select id as order_id, email as customer_email, status, total_cents as order_total_cents
from {{ source('shop', 'orders_${i}') }}
`;
}

/** Writes the project under `root` and returns the number of files written. */
export function generateProject(root: string, shape: ProjectShape): number {
  mkdirSync(join(root, "models", "marts"), { recursive: true });
  mkdirSync(join(root, "models", "staging"), { recursive: true });
  writeFileSync(join(root, "dbt_project.yml"), "name: synthetic\nversion: '1.0'\nprofile: synthetic\n");
  let files = 1;
  for (let i = 0; i < shape.marts; i++) {
    writeFileSync(join(root, "models", "marts", `fct_model_${i}.yml`), martsYml(i));
    writeFileSync(join(root, "models", "marts", `fct_model_${i}.sql`), martsSql(i));
    files += 2;
  }
  for (let i = 0; i < shape.staging; i++) {
    writeFileSync(join(root, "models", "staging", `stg_model_${i}.yml`), stagingYml(i));
    writeFileSync(join(root, "models", "staging", `stg_model_${i}.sql`), stagingSql(i));
    files += 2;
  }
  return files;
}

/** A sources yml declaring `count` tables orders_<i> of source shop, each with these columns (name, data_type). */
export function sourcesYml(count: number, columns: readonly (readonly [string, string])[]): string {
  const declared = columns.map(([name, type]) => `          - {name: ${name}, data_type: ${type}}\n`).join("");
  const tables = Array.from({ length: count }, (_, i) => `      - name: orders_${i}\n        columns:\n${declared}`);
  return `version: 2\nsources:\n  - name: shop\n    tables:\n${tables.join("")}`;
}
