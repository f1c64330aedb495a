"""A JAX program's own ops, in four rooms by job: read, hlo, judge and predict.

read (a capture's wire format walked and its op events read into columns, no JAX), hlo (the
optimized HLO: instructions, shapes, kinds, FLOPs, loops, labels, and the pinned private
JAX/XLA calls that print and price it), judge (each op priced, joined with its device time and
judged against its roofs, and written as records) and predict (a step predicted from kernel
curves and held against its profile). Beside them examples (built-in programs) and run
(profile a function here). Imports run predict -> (run, examples) -> judge -> (read, hlo); read
and hlo import no other room. May import perfcore.measure.results, perfcore.measure.clock and
perfcore.model.
"""
