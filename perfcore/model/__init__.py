"""The arithmetic of accelerator performance, standard library only, in four rooms by job.

chip (one device and its links: specs, roofline, ops, precision, hierarchy, occupancy,
collectives, generations, pitfalls), llm (a whole transformer: its shapes, ops per pass,
phases, TP groups and serving memory), plans (a parallel layout and the training and serving
plans priced and searched over it) and runs (published measured runs priced against their
bound, and the efficiencies they give). Imports run one way: runs -> plans -> llm -> chip;
nothing here imports perfcore.measure, numpy, jax, plotly or streamlit.
"""
