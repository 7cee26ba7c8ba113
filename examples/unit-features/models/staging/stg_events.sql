select event_id, kind, loaded_at from {{ source('shop', 'events') }}
