"""The clock: statistics, the timing harness (Measurement), the results file format,
device matching, suites, roofline points, and the JAX experiments. jax_bench is the
only module that imports jax, and only when an experiment runs.
"""
