select
    id as order_id,
    customer_id,
    lower(status) as status,
    total_cents,
    ordered_at
from {{ source('shop', 'orders') }}
