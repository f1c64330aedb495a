"""Figures, plans: the Plan page's charts: where a step goes, memory per GPU, the serving
frontier, published runs against their bound. May import figures.llm and figures.chip.
"""
