"""Explain, measure: what was measured: the Measure page (clock, sweep, this machine's roofline)
and the Profile page (a profile's ops, the bundled example, the prediction held against it). May
import explain.chip; it reads perfcore.measure's records.
"""
