"""The clock: statistics, the timing harness (Measurement), the results file format,
device matching, suites, roofline points, and the JAX experiments. registry names the
experiments and their functions without importing JAX: jax_env imports jax when a run
starts (distributed.py imports it for jax.distributed); jax_bench runs the registry.
"""
