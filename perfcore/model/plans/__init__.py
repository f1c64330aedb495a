"""Plans at scale: one Layout value, a training step priced for it, the search, serving plans.

layout (tp, pp, dp, cp, ep, ZeRO, micro-batch, interleave, recompute: checked once),
train_cost (FLOPs and memory per GPU), train_comm (the step's collectives, placed and
overlapped), train_plan (one step priced), search (every layout ranked) and serve_plan
(TP x replicas x batch). May import perfcore.model.llm and perfcore.model.chip; never runs.
"""
