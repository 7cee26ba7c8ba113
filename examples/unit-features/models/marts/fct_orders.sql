{{ config(materialized='table') }}

with orders as (
    select * from {{ ref('stg_orders') }}
),

customers as (
    select * from {{ ref('stg_customers') }}
)

select
    o.order_id,
    c.customer_name,
    c.country,
    {{ cents_to_units('o.total_cents') }} as amount,
    '{{ var("reporting_currency") }}' as currency
from orders as o
left join customers as c on c.customer_id = o.customer_id
where {{ non_cancelled('o') }}
