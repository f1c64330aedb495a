"""A whole transformer on one device or a TP group: shapes, ops per pass, phases, memory.

models (data/models.csv), workloads (a model's named ops per pass: prefill, decode, train),
phases (those passes priced on the roofline), parallel (where a parallel group sits and the
collectives it adds) and serving (memory, fit and capacity on t GPUs). May import
perfcore.model.chip, perfcore.format and perfcore.errors; never plans or runs.
"""
