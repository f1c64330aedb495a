"""Measurement, in four rooms by job: the clock, the results file, the experiments, the profiler.

clock (statistics, the timing harness and Measurement, device facts, the one-at-a-time lock),
results (the results file: record, schema codecs, loading and old versions, and what is
derived from records without JAX: measured roofline points, plateaus, link fits, reports),
experiments (the registered JAX experiments, suites and the runner) and profile (a JAX
program's capture read, its HLO priced op by op, joined and judged). Imports run
experiments -> results -> clock and profile -> results -> clock; experiments and profile do
not import each other. JAX is imported lazily, inside a run or a capture read only.
"""
