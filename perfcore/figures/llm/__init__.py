"""Figures, llm: whole-model charts: Workloads (its ops on the roofline, memory), Scale-out, and
memory (memory per GPU against the capacity, which Plan shares). May import figures.chip.
"""
