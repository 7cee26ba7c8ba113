select
    id as order_id,
    customer_id,
    status,
    amount_cents,
    cast(ordered_at as timestamp) as ordered_at
from {{ source('shop', 'raw_orders') }}
