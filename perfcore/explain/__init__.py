"""What each dashboard page shows besides its chart: tables, takeaways, derived rows.

One module per page. Pure functions of perfcore results: pandas DataFrames of SI numbers
for the tables (missing = NaN, never text; df.attrs["units"] maps a column to its kind, a
perfcore.format function name, and the UI adds the display unit to its header), plain
strings for the "read this" takeaways, computed from the current numbers so they change
when the inputs do.
"""
