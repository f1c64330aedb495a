"""What each dashboard page shows besides its chart: tables, takeaways, derived rows.

One module per page. Pure functions of perfcore results: pandas DataFrames for the
tables (column names carry units), plain strings for the "read this" takeaways,
computed from the current numbers so they change when the inputs do.
"""
