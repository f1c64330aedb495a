"""Explain, plans: the Plan page: training layouts searched and ranked, serving plans, the
published runs beside them, the takeaways, and the one expected rule (`expected`) the CLI
shares. May import explain.llm and explain.chip.
"""
