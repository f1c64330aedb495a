"""What each dashboard page shows besides its chart: tables, takeaways, derived rows.

In rooms by what the pages explain: chip (the single-chip pages), llm (Workloads, Scale-out),
plans (the Plan page) and measure (the Measure and Profile pages); plans may import llm and
chip, llm and measure chip. A module per page or per job of a page. Pure functions of
perfcore results: pandas DataFrames of SI numbers for the tables (missing = NaN, never text;
df.attrs["units"] maps a column to its kind, a perfcore.format function name, and the UI adds
the display unit to its header), plain strings for the "read this" takeaways, computed from
the current numbers so they change when the inputs do.
"""
