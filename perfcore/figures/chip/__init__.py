"""Figures, chip: the single-chip pages' charts (home, roofline, hierarchy, generations,
precision, occupancy, pitfalls), and what every chart shares: style (themes, axes, fitted
margins) and roofs (the roof traces of every roofline chart). Imports no other room.
"""
