"""A program's step predicted from the device's kernel curves, then held against its profile.

program (the optimized HLO's ops predicted and scheduled, plus dispatch), op (one
instruction's predicted time from its kind, size and the curves), kinds (which kernel curve
prices an instruction), permutes (what a transpose or copy moves, and how XLA:CPU then reads:
the strided transpose), matmuls (a dot's or a convolution's kind and size), graph (the
dependency graph XLA:CPU's runtime runs, for ops that overlap), reuse (how far back each
operand was last touched: what it reads cold), wall (the step timed untraced) and versus
(every op predicted beside measured, and the step beside its wall). May import
profile.judge, profile.read, profile.hlo and the profile package's run and examples,
perfcore.measure.results, perfcore.measure.clock and perfcore.model.
"""
