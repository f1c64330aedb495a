"""Explain, llm: whole-model pages: Workloads (its tables, its text, its expected figures from
measured kernels) and Scale-out (all-reduce over each link and its metrics). May import
explain.chip.
"""
