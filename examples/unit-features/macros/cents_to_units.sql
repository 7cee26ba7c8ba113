{#- Money is stored in cents; reports show units with two decimals. -#}
{% macro cents_to_units(column, scale=2) -%}
    round({{ column }} / 100.0, {{ scale }})
{%- endmacro %}

{% macro non_cancelled(alias) -%}
    {%- set statuses = ['cancelled', 'refunded'] -%}
    {{ alias }}.status not in ({% for s in statuses %}'{{ s }}'{% if not loop.last %}, {% endif %}{% endfor %})
{%- endmacro %}
