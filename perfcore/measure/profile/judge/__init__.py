"""A captured program's ops priced, joined with their device time, and judged.

price (an instruction's category, shapes and cost per occurrence), steps (events grouped by
step and op with numpy), joined (Op, Program, Profile: what a join holds), join (each op's
time beside its FLOPs and bytes, loops weighted, async ops timed to their reader), assess
(each op against the roofs of the device it ran on, and what to change) and records (a
Profile as results records, and back). May import profile.read and profile.hlo,
perfcore.measure.results, perfcore.measure.clock and perfcore.model.
"""
