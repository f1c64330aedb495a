"""Explain, chip: the single-chip pages' tables and takeaways (home, roofline, hierarchy,
generations, precision, occupancy, pitfalls), a what-if device's notes, and refusal (a user
error in a page's words). Imports perfcore.model and perfcore.format only, of perfcore.
"""
