select
    id as customer_id,
    email as customer_email,
    country
from {{ source('shop', 'raw_customers') }}
