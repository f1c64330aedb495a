"""Published measured runs (data/runs.csv) priced against their bound, and what they teach.

rows (one frozen Run per CSV row, every problem reported), published (each run priced by the
plans' own code) and efficiency (the efficiency per regime and its held-out error). May import
every other room of perfcore.model; nothing in perfcore.model imports it back.
"""
