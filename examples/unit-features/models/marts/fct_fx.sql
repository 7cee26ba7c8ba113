select
    o.order_id,
    round(o.total_cents / 100.0 * fx.rate, 2) as amount,
    fx.currency
from {{ ref('stg_orders') }} as o
join {{ ref('fx_rates') }} as fx on fx.currency = '{{ var("reporting_currency") }}'
