select
    customer_id,
    concat_ws(' ', initcap(first_name), initcap(last_name)) as full_name,
    regexp_like(email, '[^@]+@[^@]+\\.[a-z]+') as has_valid_email,
    split_part(email, '@', 2) as email_domain
from {{ source('shop', 'raw_customers') }}
