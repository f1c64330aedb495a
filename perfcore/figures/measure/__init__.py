"""Figures, measure: what was measured: the Measure page's charts (sweep, clock, this machine's
roofline) and the Profile page's (ops on the roofline, predicted against measured, label
placement). May import figures.chip.
"""
