"""A JAX program's own ops: its capture read, each op priced from its HLO, joined and judged.

xspace (the capture's wire format walked with the stdlib, so a bad file is refused in one
line), wire, planes and events (op events read from the wire format into numpy columns),
capture (a file, folder or upload read), write (a capture built, for tests and benches), hlo
(instructions, shapes, kinds, FLOPs, loops, labels), xla_private (the private JAX/XLA calls,
pinned), price (an instruction's cost), steps (events grouped by step and op with numpy),
join (op events beside their FLOPs and bytes, loops weighted), assess (each op against its
roofs), records (a Profile as results records), examples (built-in programs) and run
(profile a function here). May import perfcore.measure.results, perfcore.measure.clock and
perfcore.model.
"""
