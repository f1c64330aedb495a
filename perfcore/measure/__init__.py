"""The clock: statistics, the timing harness (Measurement), the results file format,
device matching, suites, roofline points, and the JAX experiments. registry names the
experiments without importing JAX; jax_bench and the modules registry names import jax,
and only when an experiment runs.
"""
