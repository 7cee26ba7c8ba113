-- Reconciliation of fct_revenue_daily (framework Stage E, step 4): the month's
-- revenue in the model against the accounting system's monthly close.
-- One row: metric, model_value, external_value.
select
    'gross_revenue' as metric,
    (
        select sum(gross_revenue)
        from {{ ref('fct_revenue_daily') }}
        where date_day >= date '2025-12-01' and date_day < date '2026-01-01'
    ) as model_value,
    (
        select revenue
        from {{ source('accounting', 'monthly_close') }}
        where month = '2025-12'
    ) as external_value
