"""The JAX experiments: what a run times, by name, and the runner that times them.

suites (named sizes and budgets, the memory guard), registry (each experiment's name and
public function, listed without JAX), env (JAX imported on first use, the device detected),
runner (run_suite under the lock), classic, roofline, stream, collectives, fusion and kernels
(the experiments; kernels a package of its own parts: sweeps, windows, rows, rounds, loops,
cold, traced), distributed (the worker processes of cross-process collectives). May import
perfcore.measure.results, perfcore.measure.clock, perfcore.model and the capture reader
(perfcore.measure.profile.read: kernels.traced reads an accelerator's kernels from a trace);
never the profiler's join or its prediction.
"""
