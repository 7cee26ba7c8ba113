select
    order_id::number as order_id,
    customer_id,
    nvl(status, 'placed') as status,
    iff(amount_cents < 0, 0, amount_cents) as amount_cents,
    discount_cents,
    ordered_at::timestamp_ntz as ordered_at
from {{ source('shop', 'raw_orders') }}
